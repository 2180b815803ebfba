#!/usr/bin/python3
"""Measures what each attention head of a trained model does on held-out text and writes a one-line caption
per head into the model file's captions section, plus every statistic to a json file: model/head-stats.json
for a decoder, model/encoder-head-stats.json for an encoder. One module for both kinds and both vocabularies.
How a caption is chosen: model/README.md ("Head captions"). It also prints what every head and the rollout
do between "train" and "station" in the page's default sentence (reported, not tuned to).

  /usr/bin/python3 model/head_stats.py --model data/model.bin     # the decoder
  /usr/bin/python3 model/head_stats.py --model data/encoder.bin   # the encoder (WordNet parts of speech)

The statistics are about words, as a reader reads the maps. A words model's maps are already word maps. A
pieces model's piece maps are merged to words the way the page's word-level maps are (the core's
merge_pieces_to_words: sum over a word's pieces as keys, mean over its pieces as queries); a pieces model
also gets one piece-level statistic, the weight a piece of a multi-piece word puts on its own word's other
pieces. Chance levels are the same statistics of uniform attention over the visible pieces (or words),
merged the same way.

Queries: a decoder's words t ≥ 2 (keys: the words up to t), an encoder's words 2 ≤ t ≤ n − 2 (keys: all n),
so that the first, previous, own and next words are different keys. same_word, punctuation and same_pos
count only the queries that have such another key (a decoder: an earlier one)."""
import argparse
import json
import math
import pathlib
import sys
import tempfile

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

STATS_FILES = {"decoder": tinylm.ROOT / "model" / "head-stats.json",
               "encoder": tinylm.ROOT / "model" / "encoder-head-stats.json"}
# Where the weight goes: (key, caption phrase), per kind; a pieces model adds OWN_PIECES.
TARGETS = {
    "decoder": (("previous", "previous word"), ("self", "the word itself"), ("first", "first word"),
                ("same_word", "earlier copies of the same word"), ("punctuation", "punctuation")),
    "encoder": (("previous", "previous word"), ("next", "next word"), ("self", "the word itself"),
                ("same_word", "other copies of the same word"), ("first", "first word"),
                ("punctuation", "punctuation"), ("same_pos", "words of the same part of speech")),
}
OWN_PIECES = ("own_pieces", "the other pieces of its own word")
CLEAR_MAJORITY = 0.4  # a target with at least this mean weight names the head outright
CLEAR_LIFT = 0.1      # a target this far above its chance level names the head as a leaning
DEFAULT_SENTENCE = "the train left the station on time"


def is_punctuation(token):
    """The tokenizer's one-character punctuation tokens (no letter, digit or non-ASCII byte)."""
    return not any(c.isalnum() or ord(c) >= 0x80 for c in token)


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


# ---- reading text as the model does ------------------------------------------------------------------------


class Reader:
    """Turns lines of words into the model's ids and each id's word: a words model's one id a word (its
    vocabulary's lookup), a pieces model's pieces (the core's encoder, through attention-tokenize)."""

    def __init__(self, m):
        self.pieces_text = m.get("pieces_text")
        self.vocab = None if self.pieces_text else tinylm.Vocabulary(m["vocab"])

    def read(self, lines):
        """Per line (a list of words): (ids, word_of: each id's word index)."""
        if self.vocab:
            return [(ids, list(range(len(ids)))) for ids in self.vocab.ids_of_lines(lines)]
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".vocab") as f:
            f.write(self.pieces_text)  # the model's own vocabulary
            f.flush()
            encoded = tinylm.pieces_of_lines([" ".join(l) for l in lines], f.name)
        return [([i for w in words for i in w], [k for k, w in enumerate(words) for _ in w]) for words in encoded]


def merge_matrices(word_of, dtype=torch.float64):
    """(Q: n × P, each word's row the mean over its pieces; K: P × n, each word's column the sum over its
    pieces) so that Q · A · K is A merged to words (the core's merge_pieces_to_words)."""
    P, n = len(word_of), word_of[-1] + 1
    K = torch.zeros(P, n, dtype=dtype)
    K[torch.arange(P), torch.tensor(word_of)] = 1
    Q = K.T / K.sum(0)[:, None]
    return Q, K


def uniform_attention(P, causal, dtype=torch.float64):
    U = torch.ones(P, P, dtype=dtype)
    if causal:
        U = U.tril()
    return U / U.sum(-1, keepdim=True)


# ---- the statistics --------------------------------------------------------------------------------------


def measure(model, examples, causal, pieces, pos_of):
    """examples: (ids, word_of, words). Per layer and head, the mean of each statistic over the queries
    (module docstring), and the same for uniform attention (the chance level)."""
    L, H = len(model.layers), model.heads
    keys = [k for k, _ in TARGETS["decoder" if causal else "encoder"]] + ["entropy", "distance"]
    if pieces:
        keys.append(OWN_PIECES[0])
    sums = {k: torch.zeros(L, H, dtype=torch.float64) for k in keys}
    uniform = {k: 0.0 for k in keys}
    counts = {k: 0 for k in ("queries", "same_word", "punctuation", "same_pos", OWN_PIECES[0])}
    by_length = {}
    for ex in examples:
        by_length.setdefault(len(ex[0]), []).append(ex)
    for P, group in sorted(by_length.items()):  # one length per batch: nothing padded
        for start in range(0, len(group), 256):
            batch = group[start:start + 256]
            _, weights, _, _ = tinylm.run_with_attention(model, torch.tensor([ex[0] for ex in batch]))
            A = torch.stack(weights, dim=1).double()  # B × L × H × P × P
            U = uniform_attention(P, causal)
            for row, (_, word_of, words) in enumerate(batch):
                Q, K = merge_matrices(word_of)
                W = Q @ A[row] @ K  # L × H × n × n: the word maps
                Wu = Q @ U @ K      # n × n: uniform attention's word map
                n = len(words)
                punct = [is_punctuation(w) for w in words]
                pos = [pos_of(w) for w in words] if pos_of else None
                positions = torch.arange(n, dtype=torch.float64)
                queries = range(2, n) if causal else range(2, n - 1)
                for t in queries:
                    counts["queries"] += 1
                    a, u = W[:, :, t, :], Wu[t]
                    targets = (("previous", t - 1), ("self", t), ("first", 0)) + (() if causal else (("next", t + 1),))
                    for key, j in targets:
                        sums[key] += a[..., j]
                        uniform[key] += u[j].item()
                    sums["entropy"] += -(a * a.clamp_min(1e-30).log()).sum(-1)
                    uniform["entropy"] += -(u * u.clamp_min(1e-30).log()).sum().item()
                    distance = (positions - t).abs()
                    sums["distance"] += (a * distance).sum(-1)
                    uniform["distance"] += (u * distance).sum().item()
                    others = [j for j in (range(t) if causal else range(n)) if j != t]
                    sets = [("same_word", [j for j in others if words[j] == words[t]]),
                            ("punctuation", [j for j in others if punct[j]])]
                    if pos is not None:
                        sets.append(("same_pos", [j for j in others if pos[t] is not None and pos[j] == pos[t]]))
                    for key, chosen in sets:
                        if chosen:
                            counts[key] += 1
                            sums[key] += a[..., chosen].sum(-1)
                            uniform[key] += u[chosen].sum().item()
                if pieces:  # piece level: a piece of a multi-piece word, on the word's other (visible) pieces
                    for p in range(P):
                        own = [k for k in range(P) if word_of[k] == word_of[p] and k != p and (not causal or k < p)]
                        if own:
                            counts[OWN_PIECES[0]] += 1
                            sums[OWN_PIECES[0]] += A[row][..., p, own].sum(-1)
                            uniform[OWN_PIECES[0]] += U[p, own].sum().item()
    means, chance = {}, {}
    for k in keys:
        n = max(1, counts.get(k, counts["queries"]))
        means[k] = (sums[k] / n).tolist()
        chance[k] = uniform[k] / n
    return means, chance, counts


def caption(stats, chance, targets, causal):
    """Names the target whose mean weight most exceeds its chance level: outright when it gets a clear
    share of the weight, as a leaning (with the chance level) when it is clearly above chance; otherwise
    the head is described by how far its weight spreads (e^entropy words) and reaches."""
    lifts = {k: stats[k] - chance[k] for k, _ in targets}
    best = max(lifts, key=lifts.get)
    phrase = dict(targets)[best]
    if stats[best] >= CLEAR_MAJORITY:
        return f"{phrase}: {100 * stats[best]:.0f}% of its weight on average", best
    if lifts[best] >= CLEAR_LIFT:
        return (f"leans to {phrase}: {100 * stats[best]:.0f}% of its weight on average "
                f"(uniform: {100 * chance[best]:.0f}%)"), best
    reach = "back" if causal else "away"
    return (f"spread out: over ~{math.exp(stats['entropy']):.1f} words, "
            f"{stats['distance']:.1f} words {reach} on average"), "spread"


def per_head(m, means, chance, targets):
    """Each head's measured shares, its caption and a printed line: (captions, one record per head)."""
    captions, heads = [], []
    for l in range(m["layers"]):
        for h in range(m["heads"]):
            stats = {k: v[l][h] for k, v in means.items()}
            text, rule = caption(stats, chance, targets, m["causal"])
            captions.append(text)
            heads.append({"layer": l, "head": h, "caption": text, "chosen": rule,
                          **{k: round(v, 4) for k, v in stats.items()}})
            print(f"L{l} H{h}: {text}\n        " + "  ".join(f"{k} {v:.3f}" for k, v in stats.items()))
    return captions, heads


def train_station(model, reader):
    """Each head's weight between "train" and "station" in the default sentence, both ways (word maps), their
    rank in the row, and the rollout's."""
    words = DEFAULT_SENTENCE.split()
    i, j = words.index("train"), words.index("station")
    [(ids, word_of)] = reader.read([words])
    _, weights, _, _ = tinylm.run_with_attention(model, torch.tensor([ids]))
    Q, K = merge_matrices(word_of, torch.float32)
    out = []
    for l, w in enumerate(weights):
        for h in range(w.shape[1]):
            a = Q @ w[0, h] @ K
            out.append({"layer": l, "head": h,
                        "train_to_station": round(a[i, j].item(), 4),
                        "train_row_rank": int((a[i] > a[i, j]).sum().item()) + 1,
                        "train_top": words[int(a[i].argmax())],
                        "station_to_train": round(a[j, i].item(), 4),
                        "station_row_rank": int((a[j] > a[j, i]).sum().item()) + 1,
                        "station_top": words[int(a[j].argmax())]})
    r = Q @ tinylm.rollout([w[0] for w in weights]) @ K
    roll = {"train_to_station": round(r[i, j].item(), 4), "train_row_rank": int((r[i] > r[i, j]).sum().item()) + 1,
            "station_to_train": round(r[j, i].item(), 4), "station_row_rank": int((r[j] > r[j, i]).sum().item()) + 1,
            "train_row": [round(v, 3) for v in r[i].tolist()], "station_row": [round(v, 3) for v in r[j].tolist()]}
    return {"sentence": DEFAULT_SENTENCE, "pieces": len(ids), "heads": out, "rollout": roll}


def held_out_examples(m, reader, limit):
    """The held-out text the model never trained on, as (ids, word_of, words). A words model: the
    validation lines of the WordNet corpus it trained on, cut to its context. A pieces model:
    build/corpus/heldout.txt (data/build_corpus.py), each line's words while their pieces fit the context."""
    if reader.vocab:
        _, validation = tinylm.split_corpus(tinylm.read_corpus())
        lines = [c for line in validation for c in tinylm.chunks(line, m["context"])]
    else:
        text = (tinylm.ROOT / "build" / "corpus" / "heldout.txt").read_text(encoding="utf-8")
        lines = [l.split(" ") for l in text.split("\n") if l]
    shortest = 3 if m["causal"] else 4  # a query t ≥ 2 (and, for an encoder, a next word) exists
    lines = [l for l in lines if len(l) >= shortest][:limit]
    out = []
    for words, (ids, word_of) in zip(lines, reader.read(lines)):
        while len(ids) > m["context"]:  # drop whole words from the end until the pieces fit
            last = word_of[-1]
            keep = word_of.index(last)
            ids, word_of, words = ids[:keep], word_of[:keep], words[:last]
        if len(words) >= shortest:
            out.append((ids, word_of, words))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(tinylm.MODEL_FILE))
    parser.add_argument("--wordnet", default="/usr/share/wordnet")
    parser.add_argument("--lines", type=int, default=None, help="measure only the first N held-out lines")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the model file and json alone")
    args = parser.parse_args()
    torch.set_num_threads(2)
    m = tinylm.read_model(args.model)
    kind = "decoder" if m["causal"] else "encoder"
    pieces = "pieces_text" in m
    model = tinylm.model_from_file(m, torch.float32)
    reader = Reader(m)
    pos_of = None if m["causal"] else wordnet_pos(args.wordnet)
    examples = held_out_examples(m, reader, args.lines)
    means, chance, counts = measure(model, examples, m["causal"], pieces, pos_of)
    targets = TARGETS[kind] + ((OWN_PIECES,) if pieces else ())
    captions, heads = per_head(m, means, chance, targets)
    print("chance (uniform attention): " + "  ".join(f"{k} {v:.3f}" for k, v in chance.items()))
    print(f"queries: {counts}")
    sharp = [(h["layer"], h["head"], k, h[k]) for h in heads for k, _ in targets if h[k] >= 0.5]
    print(f"heads with one pattern at >= 50%: {len({(l, h) for l, h, _, _ in sharp})} "
          f"({', '.join(f'L{l}H{h} {k} {100 * v:.0f}%' for l, h, k, v in sharp) or 'none'})")
    ts = train_station(model, reader)
    print(f'"{ts["sentence"]}" ({ts["pieces"]} tokens), word maps:')
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
    stats_file = STATS_FILES[kind]
    stats_file.write_text(json.dumps({
        "about": f"Per-head attention statistics of {args.model} on held-out text (model/head_stats.py): "
                 "means over word queries (a decoder's t >= 2, an encoder's 2 <= t <= n-2) of word maps (a pieces "
                 "model's merged: sum over key pieces, mean over query pieces); same_word, punctuation, same_pos "
                 "only over queries with such another word (same_pos: WordNet's dominant part of speech); "
                 "own_pieces over pieces of multi-piece words; entropy in nats; distance in words; chance = "
                 "uniform attention over the visible tokens, merged the same way.",
        "model": {"kind": kind, "vocabulary": "pieces" if pieces else "words", "layers": m["layers"],
                  "heads": m["heads"], "d_model": m["d_model"], "examples": len(examples)},
        "queries": counts, "chance": {k: round(v, 4) for k, v in chance.items()}, "heads": heads,
        "train_station": ts}, indent=1) + "\n")
    print(f"statistics -> {stats_file}")


if __name__ == "__main__":
    main()
