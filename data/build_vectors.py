#!/usr/bin/env python3
"""Helpers for data/build_vectors.sh (python3 standard library only).

  build_vectors.py corpus WORDNET_DIR OUT.txt
      One line per WordNet synset: its lemma words (underscores -> spaces), then its gloss
      (definitions and quoted example sentences). Untokenised; the project's tokenizer runs next.

  build_vectors.py pack MODEL.vec OUT.bin MAX_BYTES WORD [WORD ...]
      Converts fastText's .vec text output (rows already ordered by corpus frequency, most
      frequent first) to the ATTNVEC1 binary format described in data/README.md, dropping
      fastText's "</s>" row and keeping the most frequent words that fit in MAX_BYTES.
      Fails if any of the listed WORDs is not kept.
"""
import math
import os
import re
import struct
import sys

MAGIC = b"ATTNVEC1"
HEADER = len(MAGIC) + 3 * 4
# Adjective syntactic markers glued to lemmas in data.adj: galore(ip), outback(a), ready_to_hand(p).
ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")


def parse_synset(line):
    """(lemmas, gloss) of one data.* line, or None for a licence-header line."""
    if line.startswith("  "):
        return None
    head, sep, gloss = line.partition(" | ")
    fields = head.split()
    # offset lex_filenum ss_type w_cnt(hex) [word lex_id]*w_cnt p_cnt ...
    count = int(fields[3], 16)
    lemmas = []
    for k in range(count):
        word = ADJ_MARKER.sub("", fields[4 + 2 * k])
        lemmas.append(word.replace("_", " "))
    return lemmas, gloss.strip() if sep else ""


def corpus(wordnet_dir, out_path):
    lines = 0
    with open(out_path, "w", encoding="utf-8", newline="\n") as out:
        for pos in ("noun", "verb", "adj", "adv"):
            path = os.path.join(wordnet_dir, "data." + pos)
            with open(path, encoding="utf-8", errors="strict") as f:
                for raw in f:
                    synset = parse_synset(raw.rstrip("\n"))
                    if synset is None:
                        continue
                    lemmas, gloss = synset
                    text = " ".join(lemmas + [gloss]).replace("\n", " ").strip()
                    out.write(text + "\n")
                    lines += 1
    print(f"corpus: {lines} synset lines -> {out_path}", file=sys.stderr)


def quantise(vec):
    peak = max(abs(x) for x in vec)
    if peak == 0.0:
        return 0.0, [0] * len(vec)
    scale = struct.unpack("<f", struct.pack("<f", peak / 127.0))[0]  # the float32 the loader sees
    return scale, [max(-127, min(127, int(round(x / scale)))) for x in vec]


def pack(vec_path, out_path, max_bytes, required):
    with open(vec_path, encoding="utf-8") as f:
        n, dim = (int(t) for t in f.readline().split())
        rows = []
        for line in f:
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            word, values = parts[0], parts[1:]
            if word == "</s>":
                continue
            if len(values) != dim:
                raise SystemExit(f"pack: bad row for {word!r}: {len(values)} values, expected {dim}")
            rows.append((word, [float(v) for v in values]))
    if len(rows) != n - 1:
        raise SystemExit(f"pack: expected {n - 1} rows besides </s>, read {len(rows)}")

    # Keep the longest frequency-ordered prefix that fits the byte budget.
    words, used, seen = [], HEADER, set()
    for word, _ in rows:
        if not word or any(c.isspace() for c in word) or word in seen:
            raise SystemExit(f"pack: unusable word {word!r}")
        cost = len(word.encode("utf-8")) + 1 + 4 + dim
        if used + cost > max_bytes:
            break
        words.append(word)
        seen.add(word)
        used += cost
    missing = [w for w in required if w not in seen]
    if missing:
        raise SystemExit(f"pack: required words not in the kept vocabulary: {missing}")

    blob = b"".join(w.encode("utf-8") + b"\n" for w in words)
    scales, values = [], bytearray()
    for _, vec in rows[: len(words)]:
        scale, q = quantise(vec)
        scales.append(scale)
        values += struct.pack(f"<{dim}b", *q)
    with open(out_path + ".tmp", "wb") as out:
        out.write(MAGIC)
        out.write(struct.pack("<III", len(words), dim, len(blob)))
        out.write(blob)
        out.write(struct.pack(f"<{len(scales)}f", *scales))
        out.write(bytes(values))
    os.replace(out_path + ".tmp", out_path)
    size = os.path.getsize(out_path)
    assert size == used, (size, used)
    print(f"pack: {len(words)} of {len(rows)} words, dim {dim}, {size} bytes -> {out_path}",
          file=sys.stderr)


def main(argv):
    if len(argv) == 4 and argv[1] == "corpus":
        corpus(argv[2], argv[3])
    elif len(argv) >= 5 and argv[1] == "pack":
        pack(argv[2], argv[3], int(argv[4]), argv[5:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
