#!/usr/bin/python3
"""Measures what each attention head of data/encoder.bin does on held-out text (the validation lines) and
writes a one-line caption per head into the file's captions section, plus every statistic to
model/encoder-head-stats.json. The encoder sees both sides, so its targets are the previous word, the
next word, the word itself, other copies of the same word, the first token, punctuation, and words of
the same part-of-speech family (WordNet's). How a caption is chosen: model/README.md ("The encoder's
heads"). It also prints what every head and the rollout do between "train" and "station" in the page's
default sentence (reported, not tuned to).

  /usr/bin/python3 model/head_stats_encoder.py [--model data/encoder.bin] [--wordnet /usr/share/wordnet]"""
import argparse
import json
import math
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402
from head_stats import is_punctuation, per_head  # noqa: E402

STATS_FILE = tinylm.ROOT / "model" / "encoder-head-stats.json"
# Statistics of where the weight goes: (key, caption phrase).
TARGETS = (("previous", "previous word"), ("next", "next word"), ("self", "the word itself"),
           ("same_word", "other copies of the same word"), ("first", "first word"),
           ("punctuation", "punctuation"), ("same_pos", "words of the same part of speech"))
CLEAR_MAJORITY = 0.4  # a target with at least this mean weight names the head outright (as for the decoder)
CLEAR_LIFT = 0.1      # a target this far above its chance level names the head as a leaning
POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}
DEFAULT_SENTENCE = "the train left the station on time"


# ---- part of speech from WordNet -------------------------------------------------------------------------


def wordnet_pos(wordnet_dir):
    """word → its dominant WordNet part of speech ('n', 'v', 'a', 'r'): the one whose senses are tagged most
    often in WordNet's sense-tagged corpus (index.*'s tagsense_cnt), then the one with most synsets.
    Inflected forms go through WordNet's exception lists (left → leave) and the core's stemming
    (stations → station). Words WordNet does not hold (the, of, a, …) have none."""
    best = {}
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        with open(pathlib.Path(wordnet_dir) / f"index.{name}", encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue  # the licence header
                fields = line.split()
                synsets, pointers = int(fields[2]), int(fields[3])
                tagged = int(fields[5 + pointers])
                key = (tagged, synsets)
                if fields[0] not in best or key > best[fields[0]][0]:
                    best[fields[0]] = (key, pos)
    lemma_pos = {w: p for w, (_, p) in best.items()}
    exceptions = {}
    for name in ("noun", "verb", "adj", "adv"):
        with open(pathlib.Path(wordnet_dir) / f"{name}.exc", encoding="utf-8") as f:
            for line in f:
                inflected, base = line.split()[:2]
                exceptions.setdefault(inflected, base)

    def pos_of(word):
        if word in lemma_pos:
            return lemma_pos[word]
        if exceptions.get(word) in lemma_pos:
            return lemma_pos[exceptions[word]]
        for stem in tinylm.stem_candidates(word):
            if stem in lemma_pos:
                return lemma_pos[stem]
        return None
    return pos_of


# ---- the statistics --------------------------------------------------------------------------------------


def measure(model, pieces, vocab, pos_of):
    """Per layer and head, sums over every query position t with 2 ≤ t ≤ T − 2 (so the first, previous,
    own and next tokens are four different keys) of each statistic, for the model and for uniform
    attention over all T keys (the chance level). same_word, punctuation and same_pos count only the
    queries that have such a key (same_pos: a query WordNet gives a part of speech, keys other than itself
    with the same one)."""
    L, H = len(model.layers), model.heads
    keys = ("previous", "next", "self", "first", "same_word", "punctuation", "same_pos", "entropy", "distance")
    sums = {k: torch.zeros(L, H, dtype=torch.float64) for k in keys}
    uniform = {k: 0.0 for k in keys}
    counts = {"queries": 0, "same_word": 0, "punctuation": 0, "same_pos": 0}
    by_length = {}
    for p in pieces:
        by_length.setdefault(len(p), []).append(p)
    for T, group in sorted(by_length.items()):  # one length per batch: no padding for the encoder to see
        for start in range(0, len(group), 256):
            batch = group[start:start + 256]
            ids = torch.tensor([vocab.ids(p) for p in batch])
            _, weights, _, _ = tinylm.run_with_attention(model, ids)
            A = torch.stack(weights, dim=1).double()  # B × L × H × T × T
            positions = torch.arange(T, dtype=torch.float64)
            for row, tokens in enumerate(batch):
                punct = torch.tensor([is_punctuation(t) for t in tokens])
                pos = [pos_of(t) for t in tokens]
                a_all = A[row]  # L × H × T × T
                for t in range(2, T - 1):
                    a = a_all[:, :, t, :]  # L × H × T keys
                    counts["queries"] += 1
                    for key, j in (("previous", t - 1), ("next", t + 1), ("self", t), ("first", 0)):
                        sums[key] += a[..., j]
                        uniform[key] += 1 / T
                    sums["entropy"] += -(a * a.clamp_min(1e-30).log()).sum(-1)
                    uniform["entropy"] += math.log(T)
                    distance = (positions - t).abs()
                    sums["distance"] += (a * distance).sum(-1)
                    uniform["distance"] += distance.mean().item()
                    others = torch.arange(T) != t
                    for key, keys_mask in (
                            ("same_word", torch.tensor([tokens[j] == tokens[t] for j in range(T)]) & others),
                            ("punctuation", punct & others),
                            ("same_pos", torch.tensor([pos[t] is not None and pos[j] == pos[t] for j in range(T)])
                             & others)):
                        if keys_mask.any():
                            counts[key] += 1
                            sums[key] += a[..., keys_mask].sum(-1)
                            uniform[key] += keys_mask.sum().item() / T
    means, chance = {}, {}
    for k in keys:
        n = counts.get(k, counts["queries"])
        means[k] = (sums[k] / n).tolist()
        chance[k] = uniform[k] / n
    return means, chance, counts


def caption(stats, chance):
    """The decoder's rule (model/head_stats.py) over the encoder's targets: the target whose mean weight
    most exceeds its chance level names the head outright when it gets a clear share of the weight, as a
    leaning (with the chance level) when it is clearly above chance; otherwise the head is described by
    how far its weight spreads (e^entropy words) and reaches (words away, either side)."""
    lifts = {k: stats[k] - chance[k] for k, _ in TARGETS}
    best = max(lifts, key=lifts.get)
    phrase = dict(TARGETS)[best]
    if stats[best] >= CLEAR_MAJORITY:
        return f"{phrase}: {100 * stats[best]:.0f}% of its weight on average", best
    if lifts[best] >= CLEAR_LIFT:
        return (f"leans to {phrase}: {100 * stats[best]:.0f}% of its weight on average "
                f"(uniform: {100 * chance[best]:.0f}%)"), best
    return (f"spread out: over ~{math.exp(stats['entropy']):.1f} words, "
            f"{stats['distance']:.1f} words away on average"), "spread"


def train_station(model, vocab):
    """Each head's weight between "train" and "station" in the default sentence, both ways, their rank
    in the row, and the rollout's."""
    tokens = DEFAULT_SENTENCE.split()
    i, j = tokens.index("train"), tokens.index("station")
    _, weights, _, _ = tinylm.run_with_attention(model, torch.tensor([vocab.ids(tokens)]))
    out = []
    for l, w in enumerate(weights):
        for h in range(w.shape[1]):
            a = w[0, h]
            out.append({"layer": l, "head": h,
                        "train_to_station": round(a[i, j].item(), 4),
                        "train_row_rank": int((a[i] > a[i, j]).sum().item()) + 1,
                        "train_top": tokens[int(a[i].argmax())],
                        "station_to_train": round(a[j, i].item(), 4),
                        "station_row_rank": int((a[j] > a[j, i]).sum().item()) + 1,
                        "station_top": tokens[int(a[j].argmax())]})
    r = tinylm.rollout([w[0] for w in weights])
    roll = {"train_to_station": round(r[i, j].item(), 4), "train_row_rank": int((r[i] > r[i, j]).sum().item()) + 1,
            "station_to_train": round(r[j, i].item(), 4), "station_row_rank": int((r[j] > r[j, i]).sum().item()) + 1,
            "train_row": [round(v, 3) for v in r[i].tolist()], "station_row": [round(v, 3) for v in r[j].tolist()]}
    return {"sentence": DEFAULT_SENTENCE, "uniform": round(1 / len(tokens), 4), "heads": out, "rollout": roll}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(tinylm.ENCODER_FILE))
    parser.add_argument("--wordnet", default="/usr/share/wordnet")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the model file and json alone")
    args = parser.parse_args()
    torch.set_num_threads(2)
    m = tinylm.read_model(args.model)
    assert not m["causal"], "an encoder file (data/encoder.bin); model/head_stats.py measures the decoder"
    model = tinylm.model_from_file(m, torch.float32)
    vocab = tinylm.Vocabulary(m["vocab"])
    pos_of = wordnet_pos(args.wordnet)
    _, validation_lines = tinylm.split_corpus(tinylm.read_corpus())
    pieces = [p for line in validation_lines for p in tinylm.chunks(line, m["context"]) if len(p) >= 4]
    means, chance, counts = measure(model, pieces, vocab, pos_of)

    captions, heads = per_head(m, means, chance, caption)
    print("chance (uniform over all words): " + "  ".join(f"{k} {v:.3f}" for k, v in chance.items()))
    print(f"queries: {counts}")
    sharp = [(h["layer"], h["head"], k, h[k]) for h in heads for k, _ in TARGETS if h[k] >= 0.5]
    print(f"heads with one pattern at >= 50%: {len({(l, h) for l, h, _, _ in sharp})} "
          f"({', '.join(f'L{l}H{h} {k} {100 * v:.0f}%' for l, h, k, v in sharp) or 'none'})")
    ts = train_station(model, vocab)
    print(f'"{ts["sentence"]}" (uniform {ts["uniform"]:.3f}):')
    for h in ts["heads"]:
        print(f"  L{h['layer']}H{h['head']}: train->station {h['train_to_station']:.3f} (rank {h['train_row_rank']}, "
              f"top {h['train_top']}), station->train {h['station_to_train']:.3f} (rank {h['station_row_rank']}, "
              f"top {h['station_top']})")
    r = ts["rollout"]
    print(f"  rollout: train->station {r['train_to_station']:.3f} (rank {r['train_row_rank']}), station->train "
          f"{r['station_to_train']:.3f} (rank {r['station_row_rank']}); train row {r['train_row']}, "
          f"station row {r['station_row']}")
    if args.no_write:
        return
    size = tinylm.replace_captions(args.model, captions)
    print(f"captions -> {args.model} ({size} bytes)")
    STATS_FILE.write_text(json.dumps({
        "about": "Per-head attention statistics of data/encoder.bin on the validation lines "
                 "(model/head_stats_encoder.py). Means over query positions 2 <= t <= T-2; same_word, punctuation "
                 "and same_pos only over queries with such another word (same_pos: WordNet's dominant part of "
                 "speech); entropy in nats; distance in words either side; chance = uniform attention over all "
                 "words.",
        "queries": counts, "chance": {k: round(v, 4) for k, v in chance.items()}, "heads": heads,
        "train_station": ts}, indent=1) + "\n")
    print(f"statistics -> {STATS_FILE}")


if __name__ == "__main__":
    main()
