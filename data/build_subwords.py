#!/usr/bin/env python3
"""Subword data for data/build_vectors.sh (python3 standard library only): what fastText's character
n-grams give words outside data/vectors.bin.

fastText (-minn 3 -maxn 6) composes any word's vector as the mean of the rows of its character n-grams
(and its own row when it is in the vocabulary). The n-gram rows live in the 2,000,000-bucket input
matrix of fastText's model.bin (~400 MB), far too large to ship, so this script reads that matrix
directly (layout of fastText 0.9.2's FastText::loadModel: args, dictionary, input matrix) and writes:

  build_subwords.py words MODEL.bin VECTORS.bin WORDLIST OUT.bin
      The composed vector (mean of its n-gram rows, as fastText's getWordVector computes it) of every
      lower-case alphabetic word of WORDLIST (lower-cased) that VECTORS.bin neither holds nor reaches
      by attn::stem_candidates, quantised like the word table, in the same ATTNVEC1 format.

  build_subwords.py reference MODEL.bin VECTORS.bin WORDLIST COUNT OUT_WORDS.txt OUT_NGRAMS.bin
      COUNT words of WORDLIST outside VECTORS.bin (every k-th, deterministic) plus the words issue 24
      lists, and an ATTNVEC1 table of the non-zero rows of their n-grams keyed by the n-gram's text: what
      the core's compose_subwords is tested on against `fasttext print-word-vectors` (tests/reference/).

  build_subwords.py ngrams MODEL.bin OUT.bin
      The n-gram last resort (issue 24 §1): every non-zero row of the bucket matrix (the buckets the
      vocabulary's n-grams hash to: fastText trains no other), keyed by bucket ("#123456", the core's
      bucket_key) in bucket order, quantised like the word table, in the same ATTNVEC1 format.

  build_subwords.py check MODEL.bin WORDS.txt REFERENCE.vec
      This script's own composition against fastText's print-word-vectors output (max |difference|).
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_vectors  # noqa: E402  (quantise, MAGIC)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model"))
from tinylm import stem_candidates  # noqa: E402  (attn::stem_candidates, asked of the core)

# Words issue 24 lists as falling through (the alphabetic ones and the ones whose stem is alphabetic).
ISSUE_WORDS = ["maybe", "ought", "deserve", "someday", "paranoid", "afterward", "murphy"]
ALPHABETIC = re.compile(r"[a-z]+")


class FastTextModel:
    """Random access to the input matrix of a fastText 0.9.2 model.bin (not quantised)."""

    def __init__(self, path):
        self.file = open(path, "rb")
        f = self.file
        magic, version = struct.unpack("<ii", f.read(8))
        if magic != 793712314 or version != 12:
            raise SystemExit(f"{path}: not a fastText 0.9.2 model (magic {magic}, version {version})")
        (self.dim, _ws, _epoch, _min_count, _neg, _word_ngrams, _loss, _model, self.buckets, self.minn,
         self.maxn, _lr_update, _t) = struct.unpack("<12id", f.read(12 * 4 + 8))
        size, self.nwords, _nlabels, _ntokens, prune_size = struct.unpack("<iiiqq", f.read(4 * 3 + 8 * 2))
        self.words = []
        for _ in range(size):
            word = bytearray()
            while (c := f.read(1)) != b"\0":
                word += c
            f.read(8 + 1)  # count (i64), type (i8)
            self.words.append(word.decode("utf-8", errors="surrogateescape"))
        if prune_size > 0:
            raise SystemExit(f"{path}: a pruned model; expected a plain one")
        f.read(8 * max(prune_size, 0))
        (quantised,) = struct.unpack("<?", f.read(1))
        if quantised:
            raise SystemExit(f"{path}: a quantised model; expected a plain one")
        rows, cols = struct.unpack("<qq", f.read(16))
        if rows != self.nwords + self.buckets or cols != self.dim:
            raise SystemExit(f"{path}: input matrix {rows} x {cols}, expected {self.nwords + self.buckets} x {self.dim}")
        self.matrix_at = f.tell()
        self.index = {w: i for i, w in enumerate(self.words)}

    def row(self, i):
        self.file.seek(self.matrix_at + 4 * self.dim * i)
        return struct.unpack(f"<{self.dim}f", self.file.read(4 * self.dim))

    def ngram_row(self, ngram):
        return self.row(self.nwords + fasttext_hash(ngram.encode("utf-8")) % self.buckets)

    def word_vector(self, word):
        """fastText's getWordVector: the mean of the word's own row (if any) and its n-gram rows."""
        rows = ([self.row(self.index[word])] if word in self.index else []) + [
            self.ngram_row(g) for g in subwords(word, self.minn, self.maxn)]
        return [sum(r[k] for r in rows) / len(rows) for k in range(self.dim)]


def fasttext_hash(data):
    """fastText's FNV-1a variant: each byte sign-extended (as int8) before the xor."""
    h = 2166136261
    for b in data:
        h = ((h ^ ((b - 256) & 0xFFFFFFFF if b >= 128 else b)) * 16777619) & 0xFFFFFFFF
    return h


def subwords(word, minn, maxn):
    """The character n-grams of "<word>", minn..maxn characters, in fastText's order, repeats kept."""
    marked = "<" + word + ">"
    return [marked[i:i + n] for i in range(len(marked)) for n in range(minn, maxn + 1) if i + n <= len(marked)]


def table_words(path):
    data = open(path, "rb").read()
    count, _dim, words_bytes = struct.unpack("<III", data[8:20])
    return data[20:20 + words_bytes].decode("utf-8").split("\n")[:count]


def reachable(word, table):
    return word in table or any(s in table for s in stem_candidates(word))


def word_list(path):
    """The lower-cased, alphabetic, distinct entries of a word list, in sorted order."""
    words = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.strip().lower()
            if ALPHABETIC.fullmatch(w):
                words.add(w)
    return sorted(words)


def write_table(path, words, vectors):
    dim = len(vectors[0])
    blob = b"".join(w.encode("utf-8") + b"\n" for w in words)
    scales, values = [], bytearray()
    for vec in vectors:
        scale, q = build_vectors.quantise(vec)
        scales.append(scale)
        values += struct.pack(f"<{dim}b", *q)
    with open(path + ".tmp", "wb") as out:
        out.write(build_vectors.MAGIC)
        out.write(struct.pack("<III", len(words), dim, len(blob)))
        out.write(blob)
        out.write(struct.pack(f"<{len(scales)}f", *scales))
        out.write(bytes(values))
    os.replace(path + ".tmp", path)
    print(f"{path}: {len(words)} rows, {os.path.getsize(path)} bytes", file=sys.stderr)


def words_command(model_path, vectors_path, list_path, out_path):
    model = FastTextModel(model_path)
    table = set(table_words(vectors_path))
    every = word_list(list_path)
    outside = [w for w in every if not reachable(w, table)]
    # A word none of whose n-grams was trained composes to zeros (fastText's buckets start at zero):
    # it stays unknown rather than take a row.
    vectors = {w: model.word_vector(w) for w in outside}
    new = [w for w in outside if any(vectors[w])]
    print(f"{list_path}: {len(every)} lower-case alphabetic words; {len(every) - len(outside)} reach the table "
          f"(as they are or stemmed), {len(new)} get composed vectors, {len(outside) - len(new)} compose to zeros",
          file=sys.stderr)
    write_table(out_path, new, [vectors[w] for w in new])


def reference_command(model_path, vectors_path, list_path, count, words_out, ngrams_out):
    model = FastTextModel(model_path)
    table = set(table_words(vectors_path))
    outside = [w for w in word_list(list_path) if w not in table and w not in model.index]
    step = max(1, len(outside) // count)
    chosen = [w for w in ISSUE_WORDS if w not in table] + [w for w in outside[::step][:count] if w not in ISSUE_WORDS]
    with open(words_out, "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in chosen))
    # Only the non-zero rows: an untrained bucket is zero and compose_subwords counts a missing row as one.
    rows = {g: model.ngram_row(g) for w in chosen for g in subwords(w, model.minn, model.maxn)}
    ngrams = sorted(g for g, row in rows.items() if any(row))
    write_table(ngrams_out, ngrams, [rows[g] for g in ngrams])


def ngrams_command(model_path, out_path):
    model = FastTextModel(model_path)
    buckets = sorted({fasttext_hash(g.encode("utf-8")) % model.buckets
                      for w in model.words if w != "</s>" for g in subwords(w, model.minn, model.maxn)})
    rows = {b: model.row(model.nwords + b) for b in buckets}
    kept = [b for b in buckets if any(rows[b])]
    print(f"{len(model.words)} vocabulary words' n-grams hash to {len(buckets)} buckets, {len(kept)} non-zero",
          file=sys.stderr)
    write_table(out_path, [f"#{b}" for b in kept], [rows[b] for b in kept])


def check_command(model_path, words_path, reference_path):
    model = FastTextModel(model_path)
    words = [w.strip() for w in open(words_path, encoding="utf-8") if w.strip()]
    reference = {}
    for line in open(reference_path, encoding="utf-8"):
        parts = line.rstrip().split(" ")
        reference[parts[0]] = [float(x) for x in parts[1:]]
    worst = max(abs(a - b) for w in words for a, b in zip(model.word_vector(w), reference[w]))
    print(f"check: {len(words)} words, max |this script - fastText print-word-vectors| = {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit("check: the composition does not match fastText's")


def main(argv):
    if len(argv) == 6 and argv[1] == "words":
        words_command(*argv[2:])
    elif len(argv) == 8 and argv[1] == "reference":
        reference_command(argv[2], argv[3], argv[4], int(argv[5]), argv[6], argv[7])
    elif len(argv) == 4 and argv[1] == "ngrams":
        ngrams_command(*argv[2:])
    elif len(argv) == 5 and argv[1] == "check":
        check_command(*argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
