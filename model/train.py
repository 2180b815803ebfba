#!/usr/bin/python3
"""Trains either tiny transformer (model/README.md) from one config and one training loop: the causal
decoder (next token, data/model.bin) or the bidirectional encoder (masked word, data/encoder.bin), on
words (the committed models: WordNet, <unk> + the 8,192 most frequent tokens, the core's stem fallback) or
on subword pieces (issue 24: data/pieces.vocab, the wider corpus of data/build_corpus.py, nothing unknown).

  /usr/bin/python3 model/train.py                              # the committed decoder (3 epochs, words)
  OMP_WAIT_POLICY=PASSIVE sh model/openblas.sh /usr/bin/python3 model/train.py --kind encoder \\
      --shape 3x4x80x256 --epochs 8 --eval-every 500 --stop-after-minutes 30   # the committed encoder
  /usr/bin/python3 model/train.py --kind decoder --vocab pieces --context 128 --pack --threads 1 ...
  (model/train_encoder.py is `model/train.py --kind encoder`, kept so the README's commands still work)

Needs Debian's python3-torch (1.13). Seeded: torch.manual_seed(seed) before the model is made, and one
seeded generator for the data order and the masks. The words runs consume the generators exactly as the two
scripts they replace did, so they reproduce the committed models (checked: 30 steps of each give
bit-identical weights, model/README.md).

Decoder (kind=decoder): position t's target is token t + 1. Words: each line cut into sequences of ≤ context
tokens from position 0, batches of similar lengths right-padded (the causal mask hides the padding).
Pieces with --pack: whole lines packed into sequences of ≤ context pieces (a line longer than the context is
cut); each line keeps its own positions from 0 and attends only within itself (a block-diagonal causal
mask), so a packed sequence trains as its lines would alone, without the padding.

Encoder (kind=encoder): BERT's masking, drawn afresh each step: each word is chosen with probability 15 %
(with pieces, all of a chosen word's pieces: whole-word masking, as fill-the-blank hides a whole word); a
chosen position becomes [MASK] (80 %), a random piece or word (10 %) or stays (10 %); the loss is over the
chosen positions. Batches hold sequences of one length, so nothing is padded."""
import argparse
import dataclasses
import math
import pathlib
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

MASK_RATE = 0.15
EVAL_SEED = 12345  # the encoder's held-out positions do not depend on the training seed


@dataclasses.dataclass
class GPTConfig:
    """Everything a run depends on (nanoGPT's GPTConfig plus the training settings)."""
    kind: str = "decoder"  # decoder (causal, next token) | encoder (bidirectional, masked word)
    vocab: str = "words"  # words (<unk> + the most frequent tokens, stemmed) | pieces (data/pieces.vocab)
    vocab_words: int = 8192  # words only
    layers: int = 2
    heads: int = 4
    d_model: int = 64
    d_ff: int = 256
    context: int = 32
    dropout: float = 0.1
    seed: int = 1
    lr: float = 3e-3
    warmup: int = 100  # -1: 10 % of the steps, at most 200 (the encoder's rule)
    max_positions: int = 4096  # tokens (B × T) per batch
    epochs: float = 3
    max_steps: int = 0  # decoder: stop after this many steps (the schedule spans the epochs); encoder: plan this many
    stop_after_minutes: float = 0  # end after the step that passes this wall time (the schedule is unchanged)
    stop_at_step: int = 0  # end after this step: reproduces a run the clock ended
    eval_every: int = 0  # held-out score every this many steps (0: once an epoch), and before the first
    log_every: int = 100  # training loss every this many steps
    pack: bool = False  # decoder on pieces: pack whole lines into each sequence
    held_out_lines: int = 0  # score on this many held-out lines, evenly spread (0: all; for smoke runs)
    threads: int = 2
    out: str = ""
    log: str = ""


# What --kind encoder changes, when not given on the command line (the committed encoder's settings).
ENCODER_DEFAULTS = dict(layers=3, heads=4, d_model=80, d_ff=256, epochs=6, warmup=-1,
                        out=str(tinylm.ROOT / "build" / "model" / "encoder.pt"),
                        log=str(tinylm.ROOT / "model" / "encoder-train-log.txt"))
DECODER_DEFAULTS = dict(out=str(tinylm.ROOT / "build" / "model" / "checkpoint.pt"),
                        log=str(tinylm.ROOT / "model" / "train-log.txt"))


def parse_config(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for field in dataclasses.fields(GPTConfig):
        flag = "--" + field.name.replace("_", "-")
        if field.type is bool or field.type == "bool":
            parser.add_argument(flag, action="store_true", default=None)
        else:
            kind = {"int": int, "float": float, "str": str}.get(str(field.type), field.type)
            parser.add_argument(flag, type=kind, default=None)
    parser.add_argument("--shape", help="layers x heads x d_model x d_ff, e.g. 3x4x80x256")
    args = vars(parser.parse_args(argv))
    shape = args.pop("shape")
    if shape:
        args.update(zip(("layers", "heads", "d_model", "d_ff"), (int(v) for v in shape.split("x"))))
    kind = args.get("kind") or "decoder"
    values = dict(ENCODER_DEFAULTS if kind == "encoder" else DECODER_DEFAULTS)
    values.update({k: v for k, v in args.items() if v is not None})
    config = GPTConfig(**values)
    assert config.kind in ("decoder", "encoder") and config.vocab in ("words", "pieces"), config
    assert not config.pack or (config.kind == "decoder" and config.vocab == "pieces"), "--pack: decoder on pieces"
    return config


# ---- data --------------------------------------------------------------------------------------------------


class Data:
    """The training and held-out sequences as id lists, with what the loop needs to know about them."""

    def __init__(self, config, log):
        if config.vocab == "words":
            lines = tinylm.read_corpus()
            train_lines, held_lines = tinylm.split_corpus(lines)
            vocab = tinylm.Vocabulary.from_counts(train_lines, config.vocab_words, mask=config.kind == "encoder")
            self.words = vocab.words
            self.mask_id = vocab.index[tinylm.MASK] if config.kind == "encoder" else 0
            self.first_guess = 1  # <unk> (0) is never a target or a random replacement
            # Each line's ids, every token its own "word".
            self.train = [[[i] for i in line] for line in vocab.ids_of_lines(train_lines)]
            self.held = [[[i] for i in line] for line in vocab.ids_of_lines(held_lines)]
            source = f"WordNet corpus {len(lines)} lines"
        else:
            corpus = tinylm.ROOT / "build" / "corpus"
            if not (corpus / "train.txt").exists():
                raise SystemExit("build/corpus/ is missing: run /usr/bin/python3 data/build_corpus.py")
            read = lambda name: (corpus / name).read_text(encoding="utf-8", errors="surrogateescape").split("\n")[:-1]
            train_lines, held_lines = read("train.txt"), read("heldout.txt")
            pieces = [l.split("\t")[0] for l in (tinylm.ROOT / "data" / "pieces.vocab").read_text(
                encoding="utf-8").split("\n")[1:-1]]
            self.words = pieces + ([tinylm.MASK] if config.kind == "encoder" else [])
            self.mask_id = len(pieces) if config.kind == "encoder" else 0
            self.first_guess = 257  # after <unk> and the 256 byte pieces: random replacements are normal pieces
            self.train = tinylm.pieces_of_lines(train_lines)
            self.held = tinylm.pieces_of_lines(held_lines)
            source = f"build/corpus: {len(train_lines)} training lines, {len(held_lines)} held out"
        if config.held_out_lines:
            self.held = self.held[::max(1, len(self.held) // config.held_out_lines)][:config.held_out_lines]
        flat = [i for line in self.train for word in line for i in word]
        self.unknown_share = sum(1 for i in flat if i == 0) / len(flat)
        self.train_ids = torch.tensor(flat, dtype=torch.long)
        log(f"data: {source}; {len(flat)} training {config.vocab}, {100 * self.unknown_share:.2f}% <unk>; "
            f"vocabulary {len(self.words)}")


def chunk_line(line, context):
    """A line (a list of words, each a list of ids) as sequences of ≤ context ids, each with the index of
    every id's word start within the sequence (tinylm.chunks for words; a word is cut only when it alone
    exceeds the context). Sequences of one id have nothing to predict and are dropped."""
    out, ids, starts = [], [], []
    for word in line:
        if len(ids) + len(word) > context and ids:
            out.append((ids, starts))
            ids, starts = [], []
        for k, i in enumerate(word):
            if len(ids) == context:
                out.append((ids, starts))
                ids, starts = [], []
            starts.append(len(ids) - k if len(ids) >= k else 0)
            ids.append(i)
    if ids:
        out.append((ids, starts))
    return [(i, s) for i, s in out if len(i) >= 2]


def decoder_sequences(lines, config):
    """The decoder's sequences without packing, as tensors: for words tinylm.chunks of each line, exactly as
    the committed models were trained; for pieces chunk_line's (a line cut between words)."""
    if config.vocab == "words":
        seqs = [piece for line in lines for piece in tinylm.chunks([w[0] for w in line], config.context)]
    else:
        seqs = [ids for line in lines for ids, _ in chunk_line(line, config.context)]
    return [torch.tensor(s, dtype=torch.long) for s in seqs]


def word_id_sequences(lines, vocab, context):
    """The decoder's word sequences of token lines under a word vocabulary, as tensors (model/export.py)."""
    return [torch.tensor(piece, dtype=torch.long) for line in lines for piece in tinylm.chunks(vocab.ids(line), context)]


def word_chunks(lines, vocab, context):
    """The encoder's word sequences of token lines with their word starts (model/export_encoder.py)."""
    return [(p, list(range(len(p)))) for line in vocab.ids_of_lines(lines) for p in tinylm.chunks(line, context)]


def pack(lines, context, generator):
    """Whole lines (after chunk_line) packed greedily, in a seeded order, into sequences of ≤ context ids.
    Returns [(ids, segment of each id, position of each id within its line)]."""
    pieces = [c[0] for line in lines for c in chunk_line(line, context)]
    order = torch.randperm(len(pieces), generator=generator).tolist()
    out, ids, segments, positions = [], [], [], []
    for k in order:
        p = pieces[k]
        if len(ids) + len(p) > context:
            out.append((ids, segments, positions))
            ids, segments, positions = [], [], []
        segment = segments[-1] + 1 if segments else 0
        ids += p
        segments += [segment] * len(p)
        positions += list(range(len(p)))
    if ids:
        out.append((ids, segments, positions))
    return out


# ---- decoder -----------------------------------------------------------------------------------------------


def length(seq):
    """A sequence's length: a tensor of ids, or a packed (ids, segments, positions)."""
    return len(seq[0]) if isinstance(seq, tuple) else len(seq)


def decoder_batches(seqs, max_positions, generator):
    """Batches of similar-length sequences, in a seeded order: shuffle, sort pools of 4096 sequences by
    length, cut them into batches of at most max_positions = B × T_max, shuffle the batches."""
    order = torch.randperm(len(seqs), generator=generator).tolist()
    out = []
    for start in range(0, len(order), 4096):
        pool = sorted(order[start:start + 4096], key=lambda i: length(seqs[i]))
        batch = []
        for i in pool:
            longest = length(seqs[i])  # the pool is sorted: the newcomer is the longest
            if batch and longest * (len(batch) + 1) > max_positions:
                out.append(batch)
                batch = []
            batch.append(i)
        out.append(batch)
    permutation = torch.randperm(len(out), generator=generator).tolist()
    return [out[k] for k in permutation]


def decoder_pad(seqs, idx):
    """Inputs (right-padded with id 0) and targets (the next token; -100 = none). With packed sequences
    (ids, segments, positions) also the segments (-1 for padding) and positions, and no target crosses
    from one line to the next."""
    packed = isinstance(seqs[idx[0]], tuple)
    T = max(len(seqs[i][0] if packed else seqs[i]) for i in idx)
    x = torch.zeros(len(idx), T, dtype=torch.long)
    y = torch.full((len(idx), T), -100, dtype=torch.long)
    seg = torch.full((len(idx), T), -1, dtype=torch.long)
    pos = torch.zeros(len(idx), T, dtype=torch.long)
    for row, i in enumerate(idx):
        if not packed:
            s = seqs[i]
            x[row, :len(s)] = s
            y[row, :len(s) - 1] = s[1:]
            continue
        ids, segments, positions = (torch.tensor(v, dtype=torch.long) for v in seqs[i])
        n = len(ids)
        x[row, :n], seg[row, :n], pos[row, :n] = ids, segments, positions
        same = segments[1:] == segments[:-1]
        y[row, :n - 1] = torch.where(same, ids[1:], torch.full_like(ids[1:], -100))
    return x, y, (seg, pos) if packed else None


def decoder_hidden(model, x, packing):
    if packing is None:
        return model.hidden(x)
    return model.hidden(x, segments=packing[0], positions=packing[1])


def decoder_evaluate(model, seqs, unigram_log_probs, words_per_target):
    """Mean cross-entropy of the model and of the unigram baseline on the same targets (nats per token),
    over all targets and over targets that are not <unk>; and per word (the nats of all targets over the
    number of words they spell: for words the same, for pieces what compares across vocabularies)."""
    model.eval()
    total = {"model": 0.0, "unigram": 0.0, "model_known": 0.0, "unigram_known": 0.0}
    n = n_known = 0
    with torch.no_grad():
        for start in range(0, len(seqs), 256):
            x, y, packing = decoder_pad(seqs, list(range(start, min(start + 256, len(seqs)))))
            keep = y >= 0
            h = decoder_hidden(model, x, packing)[keep]
            target = y[keep]
            nll = F.cross_entropy(tinylm.tied_logits(model, h), target, reduction="none")
            uni = -unigram_log_probs[target]
            known = target != 0
            total["model"] += nll.sum().item()
            total["unigram"] += uni.sum().item()
            total["model_known"] += nll[known].sum().item()
            total["unigram_known"] += uni[known].sum().item()
            n += target.numel()
            n_known += int(known.sum())
    model.train()
    result = {k: v / (n if "known" not in k else max(1, n_known)) for k, v in total.items()}
    result["model_per_word"] = result["model"] * words_per_target
    return result, n, n_known


# ---- encoder -----------------------------------------------------------------------------------------------


def group_by_length(seqs):
    """{T: (ids N × T, word start of each position N × T)}."""
    groups = {}
    for ids, starts in seqs:
        groups.setdefault(len(ids), []).append((ids, starts))
    return {T: (torch.tensor([g[0] for g in group], dtype=torch.long),
                torch.tensor([g[1] for g in group], dtype=torch.long)) for T, group in groups.items()}


def encoder_batches(by_length, max_positions, generator):
    """Batches of sequences of one length: per length, shuffle and cut into batches of at most
    max_positions tokens; then shuffle all batches. Returns [(T, row indices)]."""
    out = []
    for T in sorted(by_length):
        rows = by_length[T][0].shape[0]
        order = torch.randperm(rows, generator=generator)
        size = max(1, max_positions // T)
        out += [(T, order[s:s + size]) for s in range(0, rows, size)]
    permutation = torch.randperm(len(out), generator=generator).tolist()
    return [out[k] for k in permutation]


def corrupt(x, starts, whole_words, vocab_size, mask_id, first_guess, generator):
    """BERT's masking of a batch x (B × T): returns (input, chosen). A position (words) or a whole word
    (pieces: drawn at its first piece, applied to all its pieces) is chosen with probability 15 %; <unk>
    is never chosen (there is nothing to guess)."""
    draw = torch.rand(x.shape, generator=generator) < MASK_RATE
    chosen = (draw.gather(1, starts) if whole_words else draw) & (x != 0)
    roll = torch.rand(x.shape, generator=generator)
    random_words = torch.randint(first_guess, vocab_size - 1, x.shape, generator=generator)
    inputs = x.clone()
    inputs[chosen & (roll < 0.8)] = mask_id
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs[swap] = random_words[swap]
    return inputs, chosen


def held_out_cases(held, mask_id):
    """Fill-the-blank cases: in each held-out sequence each word is chosen with probability 15 % by a fixed
    generator (at least one), and masked on its own, all its pieces. {T: (inputs, masked N × T, targets N × T)}."""
    generator = torch.Generator().manual_seed(EVAL_SEED)
    groups = {}
    for ids, starts in held:
        ids_t = torch.tensor(ids, dtype=torch.long)
        starts_t = torch.tensor(starts, dtype=torch.long)
        words = ((starts_t == torch.arange(len(ids))) & (ids_t != 0)).nonzero().flatten()
        if len(words) == 0:
            continue
        pick = words[torch.rand(len(words), generator=generator) < MASK_RATE]
        if len(pick) == 0:
            pick = words[torch.randint(len(words), (1,), generator=generator)]
        for t in pick.tolist():
            masked = starts_t == t
            inputs = ids_t.clone()
            inputs[masked] = mask_id
            groups.setdefault(len(ids), []).append((inputs, masked, ids_t))
    return {T: tuple(torch.stack([c[k] for c in g]) for k in range(3)) for T, g in groups.items()}


def encoder_evaluate(model, cases, mask_id):
    """Whole-word top-1 (every piece of the hidden word is the model's first guess at its place; for words,
    top-1 accuracy), top-5 per hidden token, and the cross-entropy per hidden token. <unk> and [MASK] are
    never offered. (Whole-word top-5 for pieces needs a search over piece sequences: next step.)"""
    model.eval()
    words = hits1 = tokens = hits5 = 0
    nll = 0.0
    with torch.no_grad():
        for T, (inputs, masked, targets) in sorted(cases.items()):
            for s in range(0, len(inputs), 512):
                x, m, y = inputs[s:s + 512], masked[s:s + 512], targets[s:s + 512]
                logits = tinylm.tied_logits(model, model.hidden(x)[m])
                target = y[m]
                nll += F.cross_entropy(logits, target, reduction="sum").item()
                logits[:, 0] = float("-inf")
                logits[:, mask_id] = float("-inf")
                top = logits.topk(5, dim=1).indices
                right = top[:, 0] == target
                hits5 += (top == target[:, None]).any(dim=1).sum().item()
                tokens += len(target)
                # A case is right when every one of its hidden tokens is the first guess.
                all_right = torch.ones_like(m)
                all_right[m] = right
                hits1 += all_right.all(dim=1).sum().item()
                words += len(x)
    model.train()
    return {"top1": hits1 / words, "top5": hits5 / tokens, "nll": nll / tokens, "cases": words, "tokens": tokens}


def unigram_baseline(train_ids, cases, vocab_size, mask_id):
    """The frequency-ranked guess for each hidden token: always the most frequent training token (top-1)
    and the five most frequent (top-5), never <unk> or [MASK]. For words this is the whole-word baseline."""
    counts = torch.bincount(train_ids, minlength=vocab_size).double()
    counts[0] = 0
    counts[mask_id] = 0
    top = counts.topk(5).indices
    targets = torch.cat([c[2][c[1]] for c in cases.values()])
    return {"top1": (targets == top[0]).double().mean().item(),
            "top5": (targets[:, None] == top[None, :]).any(dim=1).double().mean().item(), "words": top.tolist()}


def decoder_held_out(config, data):
    """The decoder's held-out sequences (packed like the training ones when config.pack), the words per
    predicted target (decoder_evaluate's per-word score), and the unigram baseline's log-probabilities
    (training frequencies, add-one). Also model/export.py's."""
    if config.pack:
        held = pack(data.held, config.context, torch.Generator().manual_seed(EVAL_SEED))
        # Every piece after a line's first is a target; they spell the line's words less its first.
        targets = sum(len(ids) - len(set(segments)) for ids, segments, _ in held)
        words_per_target = targets / max(1, sum(max(0, len(line) - 1) for line in data.held))
    else:
        held = decoder_sequences(data.held, config)
        targets = sum(len(s) - 1 for s in held)
        words = sum(len({starts for starts in c[1]}) - 1 for line in data.held for c in chunk_line(line, config.context))
        words_per_target = 1.0 if config.vocab == "words" else targets / max(1, words)
    counts = torch.bincount(data.train_ids, minlength=len(data.words)).double() + 1
    return held, words_per_target, (counts / counts.sum()).log()


def encoder_held_out(config, data):
    """The encoder's fill-the-blank cases on the held-out lines (held_out_cases). Also model/export_encoder.py's."""
    return held_out_cases([c for line in data.held for c in chunk_line(line, config.context)], data.mask_id)


# ---- the loop ----------------------------------------------------------------------------------------------


def blas_in_use():
    """The libblas.so.3 this process loaded (model/openblas.sh swaps in OpenBLAS)."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libblas" in line or "libopenblas" in line}
    return ", ".join(sorted(paths)) or "none"


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def train(config):
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    log = tinylm.log_to(config.log)
    started, cpu_started = time.time(), time.process_time()
    log(f"torch {torch.__version__}, {torch.get_num_threads()} threads, BLAS {blas_in_use()}, seed {config.seed}; "
        f"load average at start {load_average()} (2 cores, shared)")
    log("config:", dataclasses.asdict(config))
    data = Data(config, log)
    V = len(data.words)
    generator = torch.Generator().manual_seed(config.seed)
    encoder = config.kind == "encoder"

    if encoder:
        train_seqs = [c for line in data.train for c in chunk_line(line, config.context)]
        by_length = group_by_length(train_seqs)
        cases = encoder_held_out(config, data)
        per_epoch = len(encoder_batches(by_length, config.max_positions, torch.Generator().manual_seed(0)))
        total_steps = config.max_steps or int(round(config.epochs * per_epoch))
        baseline = unigram_baseline(data.train_ids, cases, V, data.mask_id)
        log(f"{len(train_seqs)} training sequences; held-out cases: {sum(len(c[0]) for c in cases.values())} hidden "
            f"words; unigram baseline (per hidden token) top-1 {100 * baseline['top1']:.2f}% top-5 "
            f"{100 * baseline['top5']:.2f}% (always {', '.join(data.words[i] for i in baseline['words'])})")
    else:
        train_seqs = pack(data.train, config.context, generator) if config.pack else \
            decoder_sequences(data.train, config)
        held_seqs, words_per_target, unigram_log_probs = decoder_held_out(config, data)
        epochs = int(math.ceil(config.epochs))
        epoch_batches = [decoder_batches(train_seqs, config.max_positions, generator) for _ in range(epochs)]
        per_epoch = len(epoch_batches[0])
        total_steps = sum(len(b) for b in epoch_batches)
        log(f"{len(train_seqs)} training sequences ({'packed' if config.pack else 'one line each'}), "
            f"{len(held_seqs)} held out")

    model = tinylm.make_model(V, config.d_model, config.heads, config.d_ff, config.layers, config.context,
                              config.dropout, causal=not encoder)
    log(f"model: {sum(p.numel() for p in model.parameters())} parameters ({model.embedding.weight.numel()} in the "
        f"tied embedding)")
    tinylm.check_tied_logits(model, config.d_model)
    optimiser = tinylm.adamw(model, config.lr)
    warmup = config.warmup if config.warmup >= 0 else min(200, total_steps // 10)

    def learning_rate(step):  # linear warm-up, then cosine decay to a tenth
        if step < warmup:
            return config.lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, total_steps - warmup)
        return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    def evaluate():
        if encoder:
            r = encoder_evaluate(model, cases, data.mask_id)
            log(f"held-out after step {step}: whole-word top-1 {100 * r['top1']:.2f}% top-5 (per hidden token) "
                f"{100 * r['top5']:.2f}% cross-entropy {r['nll']:.4f} ({time.time() - started:.0f} s wall)")
        else:
            r, _, _ = decoder_evaluate(model, held_seqs, unigram_log_probs, words_per_target)
            log(f"held-out after step {step}: {r['model']:.4f} nats/token (perplexity {math.exp(r['model']):.1f}), "
                f"per word {r['model_per_word']:.4f} (perplexity {math.exp(r['model_per_word']):.1f}) vs unigram "
                f"{r['unigram']:.4f}; without <unk> targets {r['model_known']:.4f} ({time.time() - started:.0f} s)")
        return r

    def stream():
        """(epoch, loss function) per step, consuming the generator as the original scripts did."""
        if encoder:
            epoch = 0
            while True:
                epoch += 1
                for T, rows in encoder_batches(by_length, config.max_positions, generator):
                    x, starts = by_length[T][0][rows], by_length[T][1][rows]
                    inputs, chosen = corrupt(x, starts, config.vocab == "pieces", V, data.mask_id, data.first_guess,
                                             generator)
                    if chosen.any():
                        yield epoch, lambda: F.cross_entropy(tinylm.tied_logits(model, model.hidden(inputs)[chosen]),
                                                             x[chosen]), int(chosen.sum())
        else:
            for epoch, order in enumerate(epoch_batches, 1):
                for idx in order:
                    x, y, packing = decoder_pad(train_seqs, idx)
                    keep = y >= 0
                    yield epoch, lambda: F.cross_entropy(
                        tinylm.tied_logits(model, decoder_hidden(model, x, packing)[keep]), y[keep]), int(keep.sum())

    log(f"{per_epoch} batches per epoch, {total_steps} steps planned, warm-up {warmup}")
    step = 0
    result = evaluate()  # no randomness: the weights and the data order do not depend on it
    eval_every = config.eval_every or per_epoch
    running, running_n = 0.0, 0
    for epoch, loss_of_batch, n in stream():
        loss = loss_of_batch()
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        step += 1
        running += loss.item() * n
        running_n += n
        if step % config.log_every == 0:
            log(f"epoch {epoch} step {step}/{total_steps} lr {learning_rate(step - 1):.2e} train loss "
                f"{running / running_n:.4f} ({time.time() - started:.0f} s wall, "
                f"{time.process_time() - cpu_started:.0f} s cpu)")
            running, running_n = 0.0, 0
        # The decoder's --max-steps ends a run whose schedule spans all epochs (a check); the encoder plans it.
        if not encoder and step == config.max_steps:
            log(f"stopping after {step} steps (--max-steps): last batch loss {loss.item():.6f}")
            break
        out_of_time = config.stop_after_minutes and time.time() - started > 60 * config.stop_after_minutes
        stopped = step < total_steps and (out_of_time or step == config.stop_at_step)
        if step % eval_every == 0 or step == total_steps or stopped:
            result = evaluate()
        if stopped:
            log(f"stopped after step {step} of the {total_steps} planned "
                f"({'the ' + str(config.stop_after_minutes) + '-minute budget' if out_of_time else '--stop-at-step'});"
                f" reproduce with the same arguments and --stop-at-step {step}")
            total_steps = step
        if step == total_steps:
            break

    elapsed, cpu = time.time() - started, time.process_time() - cpu_started
    log(f"training took {elapsed:.0f} s wall ({elapsed / 60:.1f} min), {cpu:.0f} s cpu; load average at the end "
        f"{load_average()}")
    out = pathlib.Path(config.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shape = {"layers": config.layers, "heads": config.heads, "d_model": config.d_model, "d_ff": config.d_ff}
    torch.save({"state_dict": model.state_dict(), "vocab": data.words, "config": dataclasses.asdict(config),
                # the keys model/export.py and export_encoder.py read
                "hyper": dict(shape, context=config.context, dropout=config.dropout,
                              vocab_words=config.vocab_words), "shape": shape, "context": config.context,
                "validation" if not encoder else "held_out": result, "seed": config.seed, "steps": step}, out)
    log(f"checkpoint -> {out}")
    return model, result


if __name__ == "__main__":
    train(parse_config())
