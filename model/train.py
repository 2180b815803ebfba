#!/usr/bin/python3
"""Trains the tiny causal transformer language model on the WordNet corpus (see model/README.md).

  /usr/bin/python3 model/train.py [--epochs 3] [--out build/model/checkpoint.pt]

Needs Debian's python3-torch (1.13). Seeded, fixed data order, 2 threads; writes the log to
model/train-log.txt and the float32 checkpoint to build/model/ (model/export.py turns it into data/model.bin)."""
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

HYPER = dict(vocab_words=8192, d_model=64, heads=4, d_ff=256, layers=2, context=32, dropout=0.1)


def sequences(lines, vocab, context):
    """Every line as id pieces of at most `context` tokens (see tinylm.chunks)."""
    return [torch.tensor(piece, dtype=torch.long) for line in lines for piece in tinylm.chunks(vocab.ids(line), context)]


def batches(seqs, max_positions, generator):
    """Batches of similar-length sequences (padding is wasted work), in a seeded order: shuffle, sort
    pools of 4096 sequences by length, cut them into batches of at most max_positions = B × T_max, shuffle
    the batches."""
    order = torch.randperm(len(seqs), generator=generator).tolist()
    out = []
    for start in range(0, len(order), 4096):
        pool = sorted(order[start:start + 4096], key=lambda i: len(seqs[i]))
        batch = []
        for i in pool:
            longest = len(seqs[i])  # the pool is sorted: the newcomer is the longest
            if batch and longest * (len(batch) + 1) > max_positions:
                out.append(batch)
                batch = []
            batch.append(i)
        out.append(batch)
    permutation = torch.randperm(len(out), generator=generator).tolist()
    return [out[k] for k in permutation]


def pad(seqs, idx):
    """Inputs (right-padded with id 0) and targets (the next token; -100 = no target). Right padding
    never reaches a real token through the causal mask, so no padding mask is needed."""
    T = max(len(seqs[i]) for i in idx)
    x = torch.zeros(len(idx), T, dtype=torch.long)
    y = torch.full((len(idx), T), -100, dtype=torch.long)
    for row, i in enumerate(idx):
        s = seqs[i]
        x[row, :len(s)] = s
        y[row, :len(s) - 1] = s[1:]
    return x, y


def evaluate(model, seqs, unigram_log_probs):
    """Mean cross-entropy (nats per predicted token) of the model and of the unigram baseline on the same
    targets, over all targets and over targets that are not <unk>."""
    model.eval()
    total = {"model": 0.0, "unigram": 0.0, "model_known": 0.0, "unigram_known": 0.0}
    n = n_known = 0
    with torch.no_grad():
        for start in range(0, len(seqs), 256):
            x, y = pad(seqs, list(range(start, min(start + 256, len(seqs)))))
            keep = y >= 0
            h = model.hidden(x)[keep]
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
    return {k: v / (n if "known" not in k else n_known) for k, v in total.items()}, n, n_known


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--max-positions", type=int, default=4096, help="B × T_max per batch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (0: all; for checks)")
    parser.add_argument("--out", default=str(tinylm.ROOT / "build" / "model" / "checkpoint.pt"))
    parser.add_argument("--log", default=str(tinylm.ROOT / "model" / "train-log.txt"))
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    log = tinylm.log_to(args.log)
    started = time.time()
    log(f"torch {torch.__version__}, {torch.get_num_threads()} threads, seed {args.seed}")
    log("hyperparameters:", HYPER, f"epochs {args.epochs} lr {args.lr} max_positions {args.max_positions}")

    lines = tinylm.read_corpus()
    train_lines, validation_lines = tinylm.split_corpus(lines)
    vocab = tinylm.Vocabulary.from_counts(train_lines, HYPER["vocab_words"])
    context = HYPER["context"]
    train = sequences(train_lines, vocab, context)
    validation = sequences(validation_lines, vocab, context)
    train_tokens = sum(len(s) for s in train)
    log(f"corpus: {len(lines)} lines; train {len(train_lines)} lines -> {len(train)} sequences, {train_tokens} tokens; "
        f"validation {len(validation_lines)} lines -> {len(validation)} sequences")
    ids = torch.cat(train)
    unk_share = (ids == 0).float().mean().item()
    log(f"vocabulary: {len(vocab)} entries (<unk> + {HYPER['vocab_words']} words); {100 * unk_share:.1f}% of "
        f"training tokens are <unk> after the stemming fallback")
    # Unigram baseline: training-token frequencies with add-one smoothing.
    counts = torch.bincount(ids, minlength=len(vocab)).double() + 1
    unigram_log_probs = (counts / counts.sum()).log()

    model = tinylm.make_model(len(vocab), HYPER["d_model"], HYPER["heads"], HYPER["d_ff"], HYPER["layers"], context,
                              HYPER["dropout"])
    params = sum(p.numel() for p in model.parameters())
    log(f"model: {params} parameters ({model.embedding.weight.numel()} in the tied embedding)")
    tinylm.check_tied_logits(model, HYPER["d_model"])

    optimiser = tinylm.adamw(model, args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    epoch_batches = [batches(train, args.max_positions, generator) for _ in range(args.epochs)]
    total_steps = sum(len(b) for b in epoch_batches)
    warmup = 100

    def learning_rate(step):  # linear warm-up, then cosine decay to a tenth
        if step < warmup:
            return args.lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, total_steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    result, n, n_known = evaluate(model, validation, unigram_log_probs)
    log(f"validation targets: {n} ({n_known} not <unk>); unigram baseline {result['unigram']:.4f} nats/token "
        f"(perplexity {math.exp(result['unigram']):.1f}); untrained model {result['model']:.4f}")
    step = 0
    for epoch, order in enumerate(epoch_batches):
        running, running_n, epoch_started = 0.0, 0, time.time()
        for b, idx in enumerate(order):
            x, y = pad(train, idx)
            keep = y >= 0
            h = model.hidden(x)[keep]
            loss = F.cross_entropy(tinylm.tied_logits(model, h), y[keep])
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(step)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            step += 1
            running += loss.item() * int(keep.sum())
            running_n += int(keep.sum())
            if step == args.max_steps:
                log(f"stopping after {step} steps (--max-steps): last batch loss {loss.item():.6f}")
                break
            if (b + 1) % 100 == 0 or b + 1 == len(order):
                log(f"epoch {epoch + 1} batch {b + 1}/{len(order)} step {step} lr {learning_rate(step - 1):.2e} "
                    f"train loss {running / running_n:.4f} ({time.time() - started:.0f} s)")
                running, running_n = 0.0, 0
        if step == args.max_steps:
            break
        result, _, _ = evaluate(model, validation, unigram_log_probs)
        log(f"epoch {epoch + 1} done in {time.time() - epoch_started:.0f} s: validation {result['model']:.4f} nats/token "
            f"(perplexity {math.exp(result['model']):.1f}) vs unigram {result['unigram']:.4f} "
            f"({math.exp(result['unigram']):.1f}); without <unk> targets {result['model_known']:.4f} vs "
            f"{result['unigram_known']:.4f}")

    elapsed = time.time() - started
    log(f"training took {elapsed:.0f} s ({elapsed / 60:.1f} min)")
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": model.state_dict(), "vocab": vocab.words, "hyper": HYPER,
                "validation": result, "seed": args.seed}, out)
    log(f"checkpoint -> {out}")


if __name__ == "__main__":
    main()
