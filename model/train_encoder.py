#!/usr/bin/python3
"""Trains the bidirectional (BERT-style) encoder on the WordNet corpus with a masked-word objective
(model/README.md, "The encoder"): the decoder's corpus, split, tokens and vocabulary procedure (tinylm.py)
plus a [MASK] token; the same pre-norm layers without the causal mask.

  /usr/bin/python3 model/train_encoder.py --shape 2x4x64x256 --max-steps 800 --log build/model/sweep-a.txt
  OMP_WAIT_POLICY=PASSIVE sh model/openblas.sh /usr/bin/python3 model/train_encoder.py --shape 3x4x80x256 \
      --epochs 8 --eval-every 500 --stop-after-minutes 30     # the committed run (model/README.md)

Objective: in each training sequence every position whose token is a word (not <unk>) is chosen with
probability 15 %; a chosen position's input becomes [MASK] (80 %), a random word (10 %) or stays (10 %),
and the loss is the cross-entropy of the original word at chosen positions only. Masks are drawn afresh
every step (dynamic masking), from a seeded generator.

Held-out score: on the validation lines, 15 % of the word positions (a fixed, seeded choice), each masked
on its own with the rest of the line intact — the page's fill-the-blank — top-1 and top-5 accuracy,
against the unigram baseline (the most frequent training words).

Seeded, fixed data order, 2 threads; the log goes to model/encoder-train-log.txt and the float32 checkpoint
to build/model/encoder.pt (model/export_encoder.py turns it into data/encoder.bin)."""
import argparse
import math
import pathlib
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

VOCAB_WORDS, CONTEXT, DROPOUT = 8192, 32, 0.1
MASK_RATE = 0.15
EVAL_SEED = 12345  # the held-out positions do not depend on the training seed


def parse_shape(text):
    """'LxHxDxF' → layers, heads, d_model, d_ff."""
    layers, heads, d_model, d_ff = (int(v) for v in text.split("x"))
    return {"layers": layers, "heads": heads, "d_model": d_model, "d_ff": d_ff}


def pieces(lines, vocab):
    """Every line as id pieces of at most CONTEXT tokens (tinylm.chunks), as lists of ids."""
    return [piece for line in lines for piece in tinylm.chunks(vocab.ids(line), CONTEXT)]


def batches(by_length, max_positions, generator):
    """Batches of sequences of one length, so no padding and no padding mask is needed (a bidirectional
    model would attend to padding): per length, shuffle and cut into batches of at most max_positions
    tokens; then shuffle all batches. by_length: {T: LongTensor N × T}. Returns [(T, row indices)]."""
    out = []
    for T in sorted(by_length):
        rows = by_length[T].shape[0]
        order = torch.randperm(rows, generator=generator)
        size = max(1, max_positions // T)
        out += [(T, order[s:s + size]) for s in range(0, rows, size)]
    permutation = torch.randperm(len(out), generator=generator).tolist()
    return [out[k] for k in permutation]


def group_by_length(seqs):
    groups = {}
    for s in seqs:
        groups.setdefault(len(s), []).append(s)
    return {T: torch.tensor(g, dtype=torch.long) for T, g in groups.items()}


def corrupt(x, vocab_size, mask_id, generator):
    """BERT's masking of a batch x (B × T ids): returns (input, chosen) where chosen marks the positions
    whose original word is predicted. <unk> positions are never chosen (there is no word to guess)."""
    chosen = (torch.rand(x.shape, generator=generator) < MASK_RATE) & (x != 0)
    roll = torch.rand(x.shape, generator=generator)
    # Random replacements are real words: ids 1 … V − 2 (not <unk>, not [MASK]).
    random_words = torch.randint(1, vocab_size - 1, x.shape, generator=generator)
    inputs = x.clone()
    inputs[chosen & (roll < 0.8)] = mask_id
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs[swap] = random_words[swap]
    return inputs, chosen


def blas_in_use():
    """The libblas.so.3 this process loaded (model/openblas.sh swaps in OpenBLAS)."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libblas" in line or "libopenblas" in line}
    return ", ".join(sorted(paths)) or "none"


def held_out_cases(validation, mask_id):
    """The fill-the-blank cases: for each validation piece, each word position chosen with probability
    15 % by a fixed generator (at least one per piece of ≥ 2 words), masked on its own. Returns
    {T: (inputs N × T, positions N, targets N)}."""
    generator = torch.Generator().manual_seed(EVAL_SEED)
    groups = {}
    for piece in validation:
        ids = torch.tensor(piece, dtype=torch.long)
        words = (ids != 0).nonzero().flatten()
        if len(words) == 0:
            continue
        pick = words[torch.rand(len(words), generator=generator) < MASK_RATE]
        if len(pick) == 0:
            pick = words[torch.randint(len(words), (1,), generator=generator)]
        for t in pick.tolist():
            masked = ids.clone()
            masked[t] = mask_id
            groups.setdefault(len(piece), []).append((masked, t, piece[t]))
    return {T: (torch.stack([c[0] for c in g]), torch.tensor([c[1] for c in g]), torch.tensor([c[2] for c in g]))
            for T, g in groups.items()}


def excluded_logits(logits, mask_id):
    """<unk> and [MASK] are never offered as guesses (the core does the same)."""
    logits = logits.clone()
    logits[:, 0] = float("-inf")
    logits[:, mask_id] = float("-inf")
    return logits


def evaluate(model, cases, mask_id):
    """Top-1 and top-5 accuracy and the mean cross-entropy (nats) of the masked word, over all cases."""
    model.eval()
    hits1 = hits5 = n = 0
    nll = 0.0
    with torch.no_grad():
        for T, (inputs, positions, targets) in sorted(cases.items()):
            for s in range(0, len(targets), 512):
                x, p, y = inputs[s:s + 512], positions[s:s + 512], targets[s:s + 512]
                h = model.hidden(x)[torch.arange(len(p)), p]
                logits = tinylm.tied_logits(model, h)
                nll += F.cross_entropy(logits, y, reduction="sum").item()
                top = excluded_logits(logits, mask_id).topk(5, dim=1).indices
                hits1 += (top[:, 0] == y).sum().item()
                hits5 += (top == y[:, None]).any(dim=1).sum().item()
                n += len(y)
    model.train()
    return {"top1": hits1 / n, "top5": hits5 / n, "nll": nll / n, "cases": n}


def unigram_baseline(train_ids, cases, vocab_size, mask_id):
    """The frequency-ranked guess: always the most frequent training word (top-1) and the five most
    frequent (top-5), never <unk>."""
    counts = torch.bincount(train_ids, minlength=vocab_size).double()
    counts[0] = 0
    counts[mask_id] = 0
    top = counts.topk(5).indices
    targets = torch.cat([c[2] for c in cases.values()])
    return {"top1": (targets == top[0]).double().mean().item(),
            "top5": (targets[:, None] == top[None, :]).any(dim=1).double().mean().item(), "words": top.tolist()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="3x4x80x256", help="layers x heads x d_model x d_ff")
    parser.add_argument("--epochs", type=float, default=6, help="passes over the training pieces")
    parser.add_argument("--max-steps", type=int, default=0, help="train exactly this many steps instead of --epochs")
    parser.add_argument("--stop-after-minutes", type=float, default=0,
                        help="end early, after the step that passes this much wall time (the learning-rate schedule "
                             "still runs over all the planned steps); the log says at which step")
    parser.add_argument("--stop-at-step", type=int, default=0,
                        help="end after this step of the planned ones: reproduces a run --stop-after-minutes ended")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--max-positions", type=int, default=4096, help="tokens per batch (B × T)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-every", type=int, default=0, help="held-out score every this many steps (0: per epoch)")
    parser.add_argument("--out", default=str(tinylm.ROOT / "build" / "model" / "encoder.pt"))
    parser.add_argument("--log", default=str(tinylm.ROOT / "model" / "encoder-train-log.txt"))
    args = parser.parse_args()
    shape = parse_shape(args.shape)

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    log = tinylm.log_to(args.log)
    started, cpu_started = time.time(), time.process_time()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    log(f"torch {torch.__version__}, {torch.get_num_threads()} threads, BLAS {blas_in_use()}, seed {args.seed}; load "
        f"average at start {' '.join(load)} (2 cores, shared)")
    log("shape:", shape, f"context {CONTEXT} dropout {DROPOUT} mask rate {MASK_RATE} (80/10/10); lr {args.lr} "
        f"max_positions {args.max_positions}; " + (f"{args.max_steps} steps" if args.max_steps else f"{args.epochs} epochs"))

    lines = tinylm.read_corpus()
    train_lines, validation_lines = tinylm.split_corpus(lines)
    vocab = tinylm.Vocabulary.from_counts(train_lines, VOCAB_WORDS, mask=True)
    mask_id = vocab.index[tinylm.MASK]
    train = pieces(train_lines, vocab)
    validation = pieces(validation_lines, vocab)
    by_length = group_by_length(train)
    train_ids = torch.cat([t.flatten() for t in by_length.values()])
    log(f"corpus: {len(lines)} lines; train {len(train_lines)} lines -> {len(train)} pieces, {len(train_ids)} tokens "
        f"({100 * (train_ids == 0).double().mean().item():.1f}% <unk>); validation {len(validation_lines)} lines -> "
        f"{len(validation)} pieces; vocabulary {len(vocab)} (<unk>, {VOCAB_WORDS} words, {tinylm.MASK} = {mask_id})")
    cases = held_out_cases(validation, mask_id)
    baseline = unigram_baseline(train_ids, cases, len(vocab), mask_id)
    log(f"held-out cases: {sum(len(c[2]) for c in cases.values())} masked words; unigram baseline top-1 "
        f"{100 * baseline['top1']:.2f}% top-5 {100 * baseline['top5']:.2f}% (always "
        f"{', '.join(vocab.words[i] for i in baseline['words'])})")

    model = tinylm.make_model(len(vocab), shape["d_model"], shape["heads"], shape["d_ff"], shape["layers"], CONTEXT,
                              DROPOUT, causal=False)
    params = sum(p.numel() for p in model.parameters())
    log(f"model: {params} parameters ({model.embedding.weight.numel()} in the tied embedding)")
    tinylm.check_tied_logits(model, shape["d_model"])

    optimiser = tinylm.adamw(model, args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    per_epoch = len(batches(by_length, args.max_positions, torch.Generator().manual_seed(0)))
    total_steps = args.max_steps or int(round(args.epochs * per_epoch))
    warmup = min(200, total_steps // 10)

    def learning_rate(step):  # linear warm-up, then cosine decay to a tenth
        if step < warmup:
            return args.lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, total_steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    log(f"{per_epoch} batches per epoch, {total_steps} steps ({total_steps / per_epoch:.2f} epochs), warm-up {warmup}")
    eval_every = args.eval_every or per_epoch
    step, epoch = 0, 0
    running, running_n = 0.0, 0
    while step < total_steps:
        epoch += 1
        for T, rows in batches(by_length, args.max_positions, generator):
            x = by_length[T][rows]
            inputs, chosen = corrupt(x, len(vocab), mask_id, generator)
            if not chosen.any():
                continue
            h = model.hidden(inputs)[chosen]
            loss = F.cross_entropy(tinylm.tied_logits(model, h), x[chosen])
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(step)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            step += 1
            running += loss.item() * int(chosen.sum())
            running_n += int(chosen.sum())
            if step % 100 == 0:
                log(f"epoch {epoch} step {step}/{total_steps} lr {learning_rate(step - 1):.2e} train loss "
                    f"{running / running_n:.4f} ({time.time() - started:.0f} s wall, "
                    f"{time.process_time() - cpu_started:.0f} s cpu)")
                running, running_n = 0.0, 0
            # The wall-time budget (a shared machine's speed varies several-fold) or a given step ends the
            # run early; the schedule is unchanged, so --stop-at-step reproduces a run the clock ended.
            out_of_time = args.stop_after_minutes and time.time() - started > 60 * args.stop_after_minutes
            stopped = step < total_steps and (out_of_time or step == args.stop_at_step)
            if step % eval_every == 0 or step == total_steps or stopped:
                r = evaluate(model, cases, mask_id)
                log(f"held-out after step {step}: top-1 {100 * r['top1']:.2f}% top-5 {100 * r['top5']:.2f}% "
                    f"cross-entropy {r['nll']:.4f} ({time.time() - started:.0f} s wall)")
            if stopped:
                log(f"stopped after step {step} of the {total_steps} planned "
                    f"({'the ' + str(args.stop_after_minutes) + '-minute budget' if out_of_time else '--stop-at-step'});"
                    f" reproduce with the same arguments and --stop-at-step {step}")
                total_steps = step
            if step == total_steps:
                break

    elapsed, cpu = time.time() - started, time.process_time() - cpu_started
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    log(f"training took {elapsed:.0f} s wall ({elapsed / 60:.1f} min), {cpu:.0f} s cpu; load average at the end "
        f"{' '.join(load)}")
    log(f"result: shape {args.shape} steps {total_steps} top-1 {100 * r['top1']:.2f}% top-5 {100 * r['top5']:.2f}% "
        f"(unigram {100 * baseline['top1']:.2f}% / {100 * baseline['top5']:.2f}%)")
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": model.state_dict(), "vocab": vocab.words, "shape": shape, "context": CONTEXT,
                "held_out": r, "unigram": baseline, "seed": args.seed, "steps": total_steps}, out)
    log(f"checkpoint -> {out}")


if __name__ == "__main__":
    main()
