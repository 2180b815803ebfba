#!/usr/bin/python3
"""Measures what each attention head of data/model.bin does on held-out text (the validation lines) and
writes a one-line caption per head into the model file's captions section, plus every statistic to
model/head-stats.json. How a caption is chosen: model/README.md ("Head captions").

  /usr/bin/python3 model/head_stats.py [--model data/model.bin]"""
import argparse
import json
import math
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

STATS_FILE = tinylm.ROOT / "model" / "head-stats.json"
# Statistics of where the weight goes: (key, caption phrase).
TARGETS = (("previous", "previous word"), ("self", "the word itself"), ("first", "first word"),
           ("same_word", "earlier copies of the same word"), ("punctuation", "punctuation"))
CLEAR_MAJORITY = 0.4  # a target with at least this mean weight names the head outright
CLEAR_LIFT = 0.1      # a target this far above its chance level names the head as a leaning


def is_punctuation(token):
    """The tokenizer's one-character punctuation tokens (no letter, digit or non-ASCII byte)."""
    return not any(c.isalnum() or ord(c) >= 0x80 for c in token)


def measure(model, pieces, vocab, context):
    """Per layer and head, sums over every query position t ≥ 2 (so the previous, first and own token
    are three different keys) of each statistic, for the model and for uniform attention over the t+1
    visible keys (the chance level)."""
    L, H = len(model.layers), model.heads
    keys = ("previous", "self", "first", "same_word", "punctuation", "entropy", "distance")
    sums = {k: torch.zeros(L, H, dtype=torch.float64) for k in keys}
    uniform = {k: 0.0 for k in keys}
    counts = {"queries": 0, "same_word": 0, "punctuation": 0}
    for start in range(0, len(pieces), 256):
        batch = pieces[start:start + 256]
        T = max(len(p) for p in batch)
        ids = torch.zeros(len(batch), T, dtype=torch.long)
        for row, p in enumerate(batch):
            ids[row, :len(p)] = torch.tensor(vocab.ids(p))
        _, weights, _, _ = tinylm.run_with_attention(model, ids)
        A = torch.stack(weights, dim=1).double()  # B × L × H × T × T
        for row, tokens in enumerate(batch):
            punct = torch.tensor([is_punctuation(t) for t in tokens])
            for t in range(2, len(tokens)):
                a = A[row, :, :, t, :t + 1]  # L × H × (t+1) visible keys
                n = t + 1
                counts["queries"] += 1
                sums["previous"] += a[..., t - 1]
                sums["self"] += a[..., t]
                sums["first"] += a[..., 0]
                uniform["previous"] += 1 / n
                uniform["self"] += 1 / n
                uniform["first"] += 1 / n
                p = a.clamp_min(1e-30)
                sums["entropy"] += -(a * p.log()).sum(-1)
                uniform["entropy"] += math.log(n)
                distance = torch.arange(t, -1, -1, dtype=torch.float64)  # t − j for j = 0..t
                sums["distance"] += (a * distance).sum(-1)
                uniform["distance"] += t / 2
                same = torch.tensor([tokens[j] == tokens[t] for j in range(t)])
                if same.any():
                    counts["same_word"] += 1
                    sums["same_word"] += a[..., :t][..., same].sum(-1)
                    uniform["same_word"] += same.sum().item() / n
                if punct[:t].any():
                    counts["punctuation"] += 1
                    sums["punctuation"] += a[..., :t][..., punct[:t]].sum(-1)
                    uniform["punctuation"] += punct[:t].sum().item() / n
    means, chance = {}, {}
    for k in keys:
        n = counts.get(k, counts["queries"])
        means[k] = (sums[k] / n).tolist()
        chance[k] = uniform[k] / n
    return means, chance, counts


def caption(stats, chance):
    """Names the target whose mean weight most exceeds its chance level: outright when it gets a clear
    share of the weight, as a leaning (with the chance level) when it is clearly above chance; otherwise
    the head is described by how far its weight spreads (e^entropy words) and reaches back."""
    lifts = {k: stats[k] - chance[k] for k, _ in TARGETS}
    best = max(lifts, key=lifts.get)
    phrase = dict(TARGETS)[best]
    if stats[best] >= CLEAR_MAJORITY:
        return f"{phrase}: {100 * stats[best]:.0f}% of its weight on average", best
    if lifts[best] >= CLEAR_LIFT:
        return (f"leans to {phrase}: {100 * stats[best]:.0f}% of its weight on average "
                f"(uniform: {100 * chance[best]:.0f}%)"), best
    return (f"spread out: over ~{math.exp(stats['entropy']):.1f} words, "
            f"{stats['distance']:.1f} words back on average"), "spread"


def per_head(m, means, chance, caption_of):
    """Each head's measured shares, its caption (caption_of(stats, chance) → (text, rule)) and a printed
    line: (captions in layer-major order, one record per head)."""
    captions, heads = [], []
    for l in range(m["layers"]):
        for h in range(m["heads"]):
            stats = {k: v[l][h] for k, v in means.items()}
            text, rule = caption_of(stats, chance)
            captions.append(text)
            heads.append({"layer": l, "head": h, "caption": text, "chosen": rule,
                          **{k: round(v, 4) for k, v in stats.items()}})
            print(f"L{l} H{h}: {text}\n        " + "  ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    return captions, heads


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=str(tinylm.MODEL_FILE))
    args = parser.parse_args()
    torch.set_num_threads(2)
    m = tinylm.read_model(args.model)
    model = tinylm.model_from_file(m, torch.float32)
    vocab = tinylm.Vocabulary(m["vocab"])
    _, validation_lines = tinylm.split_corpus(tinylm.read_corpus())
    pieces = [p for line in validation_lines for p in tinylm.chunks(line, m["context"]) if len(p) >= 3]
    means, chance, counts = measure(model, pieces, vocab, m["context"])

    captions, heads = per_head(m, means, chance, caption)
    print("chance (uniform over visible words): " + "  ".join(f"{k} {v:.3f}" for k, v in chance.items()))
    print(f"queries: {counts}")
    size = tinylm.replace_captions(args.model, captions)
    print(f"captions -> {args.model} ({size} bytes)")
    STATS_FILE.write_text(json.dumps({
        "about": "Per-head attention statistics of data/model.bin on the validation lines (model/head_stats.py). "
                 "Means over query positions t >= 2; same_word and punctuation only over queries with such an "
                 "earlier word; entropy in nats; distance in words; chance = uniform attention over visible words.",
        "queries": counts, "chance": {k: round(v, 4) for k, v in chance.items()}, "heads": heads}, indent=1) + "\n")
    print(f"statistics -> {STATS_FILE}")


if __name__ == "__main__":
    main()
