#!/usr/bin/python3
"""Issue 24's "every word understood", measured on real one-line sentences that neither model trained on:
the English long descriptions of Debian's packages (bookworm main, the Translation-en index apt fetches),
split into sentences. Debian's fortune databases are never read, and packages whose name mentions fortune
are skipped. The text is not committed (each description is its package's own; licences vary): the script
rebuilds the set from apt's index.

  apt-get update -o 'Acquire::Languages=en' -o 'Acquire::Languages::=en'   # once: Translation-en (~13 MB)
  /usr/bin/python3 model/measure_coverage.py     # → the numbers in model/README.md ("Every word understood")

  (and, for the word vectors through the public JS API, the wasm build: bash scripts/build.sh)

Reported: tokens the committed word models (data/model.bin, data/encoder.bin: <unk> + 8,192 words, with the
core's stem fallback) cannot read (<unk>), the same under the pieces vocabulary (data/pieces.vocab; must be
0), and the share of sentences longer than 32 and 128 tokens / pieces."""
import collections
import glob
import hashlib
import pathlib
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "data"))
import build_subwords  # noqa: E402  (fastText's n-grams and hash)

INDEX = "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en*"
SAMPLE = 20000  # sentences kept (a deterministic choice by hash), enough for 0.01 % steps
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def descriptions(path):
    """(package, long description paragraphs) from a Translation-en file (lz4-compressed or plain)."""
    if path.endswith(".lz4"):
        text = subprocess.run(["lz4", "-dc", path], stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    else:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    for record in text.split("\n\n"):
        package = re.search(r"^Package: (\S+)", record, re.M)
        body = re.search(r"^Description-en: [^\n]*\n((?: [^\n]*\n?)*)", record, re.M)
        if not package or not body:
            continue
        paragraphs, current = [], []
        for line in body.group(1).split("\n"):
            if line.strip() in (".", ""):
                paragraphs.append(current)
                current = []
            elif line.startswith("  ") or re.match(r"^ \s*[-*+o•] ", line):
                paragraphs.append(current)  # a list item or preformatted text: not running prose
                current = []
            else:
                current.append(line.strip())
        paragraphs.append(current)
        yield package.group(1), [" ".join(p) for p in paragraphs if p]


def sentences():
    """Unique prose sentences of 4+ words that end like a sentence, in a fixed order."""
    seen = set()
    for path in sorted(glob.glob(INDEX)):
        for package, paragraphs in descriptions(path):
            if "fortune" in package:
                continue
            for paragraph in paragraphs:
                for s in SENTENCE_END.split(paragraph):
                    s = s.strip()
                    if len(s.split()) >= 4 and s[-1] in ".!?" and s not in seen and "\t" not in s:
                        seen.add(s)
    ranked = sorted(seen, key=lambda s: hashlib.sha256(s.encode("utf-8")).digest())
    return ranked[:SAMPLE], len(seen)


def tokenize(lines):
    data = "".join(l + "\n" for l in lines).encode("utf-8")
    out = subprocess.run([tinylm._tool()], input=data, stdout=subprocess.PIPE, check=True).stdout
    return [l.split() for l in out.decode("utf-8", errors="surrogateescape").split("\n")[:-1]]


def vector_words(path):
    """The words of a vectors file (ATTNVEC1: magic, count, dim, words_bytes, then the words, one a line)."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"ATTNVEC1", path
    words_bytes = int.from_bytes(data[16:20], "little")
    return set(data[20:20 + words_bytes].decode("utf-8").split("\n")[:-1])


# The same sentences embedded by the public JS API (build/wasm/attention.js): the table with the composed list
# and every n-gram row attached, as the page attaches its shards; prints the count of tokens with lookup 'unknown'.
JS_EMBED = """
import { readFile } from 'node:fs/promises';
const [, wasmDir, dataDir] = process.argv;
const api = await import(wasmDir + '/attention.js');
const core = await api.loadAttention({ wasmBinary: await readFile(wasmDir + '/attention_wasm.wasm') });
const bytes = async (name) => new Uint8Array(await readFile(dataDir + '/' + name));
const composed = await bytes('vectors-composed.bin'), ngrams = await bytes('vectors-ngrams.bin');
// One attached table holds both files' rows, as loader.js merges the shards (their keys never collide).
const { mergeVectors } = await import(dataDir + '/../web/lib/vectors-format.js');
const table = core.loadVectors(await bytes('vectors.bin')).attachComposed(mergeVectors([composed, ngrams]));
let unknown = 0;
for (const line of (await readFile('/dev/stdin', 'utf8')).split('\\n').filter(Boolean))
  for (const t of table.embed(line, 100000).tokens) unknown += t.lookup === 'unknown';
table.delete();
console.log(unknown);
"""


def js_embed(lines):
    wasm = tinylm.ROOT / "build" / "wasm"
    if not (wasm / "attention.js").exists():
        print("(no build/wasm/attention.js: the JS API count is skipped; bash scripts/build.sh)")
        return None
    data = "".join(l + "\n" for l in lines).encode("utf-8")
    out = subprocess.run(["node", "--input-type=module", "-e", JS_EMBED, str(wasm), str(tinylm.ROOT / "data")],
                         input=data, stdout=subprocess.PIPE, check=True).stdout
    return int(out.decode().strip())


def share(count, total):
    return f"{count} ({100 * count / total:.2f} %)"


def main():
    chosen, available = sentences()
    if not chosen:
        raise SystemExit("no Translation-en index: run apt-get update -o 'Acquire::Languages=en' "
                         "-o 'Acquire::Languages::=en' first")
    tokens = tokenize(chosen)
    corpus = set()
    for name in ("train.txt", "heldout.txt"):
        path = tinylm.ROOT / "build" / "corpus" / name
        if path.exists():
            corpus |= set(path.read_text(encoding="utf-8", errors="surrogateescape").split("\n"))
    in_corpus = sum(1 for t in tokens if " ".join(t) in corpus)
    n_tokens = sum(len(t) for t in tokens)
    print(f"sentences: {len(chosen)} of {available} unique prose sentences of Debian's package descriptions "
          f"(bookworm main, Translation-en); {n_tokens} tokens; {in_corpus} also lines of the training corpus")
    for path in (tinylm.WORDS_DECODER_FILE, tinylm.WORDS_ENCODER_FILE):  # the words models (before the pieces)
        vocab = tinylm.Vocabulary(tinylm.read_model(path)["vocab"])
        tinylm.prefetch_stems({t for line in tokens for t in line if t not in vocab.index})
        kinds = {"known": 0, "stemmed": 0, "unknown": 0}
        with_unknown = 0
        for line in tokens:
            found = [vocab.lookup(t)[1] for t in line]
            for k in found:
                kinds[k] += 1
            with_unknown += "unknown" in found
        print(f"{path.name} (words): unknown tokens {share(kinds['unknown'], n_tokens)}, stemmed "
              f"{share(kinds['stemmed'], n_tokens)}; sentences with an unknown token {share(with_unknown, len(tokens))}; "
              f"sentences over 32 tokens {share(sum(len(t) > 32 for t in tokens), len(tokens))}, over 128 "
              f"{share(sum(len(t) > 128 for t in tokens), len(tokens))}")
    # The word vectors (data/vectors.bin, then data/vectors-composed.bin, then data/vectors-ngrams.bin), looked
    # up as the core's WordVectors::embed does: the word, its stems, then the composed table's word and its
    # stems, then the word composed from fastText's n-gram rows (keyed by bucket) when one of its n-grams'
    # buckets has a row and it is not a lone punctuation mark, else spelled out from its letters' rows.
    table, composed, ngram_rows = (vector_words(tinylm.ROOT / "data" / name) for name in (
        "vectors.bin", "vectors-composed.bin", "vectors-ngrams.bin"))
    tinylm.prefetch_stems({t for line in tokens for t in line if t not in table})

    def listed(t):
        return any(c in table or c in composed for c in [t, *tinylm.stem_candidates(t)])

    def from_ngrams(t):
        if len(t) == 1 and ord(t) < 128 and not t.isalnum():
            return False
        return any(f"#{build_subwords.fasttext_hash(g.encode('utf-8', 'surrogateescape')) % 2000000}" in ngram_rows
                   for g in build_subwords.subwords(t, 3, 6)) or spelled(t)

    def spelled(t):  # no trained n-gram: spelled out from the rows "<q>", "<t>" of its ASCII letters and digits
        return any(f"#{build_subwords.fasttext_hash(f'<{c}>'.encode()) % 2000000}" in ngram_rows
                   for c in t if c.isascii() and c.isalnum())

    for name, found in (("vectors.bin + vectors-composed.bin, with stems", listed),
                        ("and the n-gram rows of vectors-ngrams.bin", lambda t: listed(t) or from_ngrams(t))):
        unknown_vec = with_unknown_vec = 0
        kinds = {}
        for line in tokens:
            missing = [t for t in line if not found(t)]
            unknown_vec += len(missing)
            with_unknown_vec += bool(missing)
            for t in missing:
                kind = ("punctuation" if len(t) == 1 and ord(t) < 128 and not t.isalnum() else
                        "alphabetic" if re.fullmatch(r"[a-z'-]+", t) else "other")
                kinds.setdefault(kind, collections.Counter())[t] += 1
        detail = "; ".join(f"{k} {sum(c.values())} (" + ", ".join(f"{t} {n}" for t, n in c.most_common(8)) + ")"
                           for k, c in sorted(kinds.items()))
        print(f"word vectors ({name}): unknown tokens {share(unknown_vec, n_tokens)}; sentences with an unknown "
              f"token {share(with_unknown_vec, len(tokens))}; {detail}")
    js_unknown = js_embed(chosen)
    if js_unknown is not None:
        print(f"word vectors through the JS API (wasm core, all three files attached): unknown tokens "
              f"{share(js_unknown, n_tokens)}")
    pieces = tinylm.pieces_of_lines(chosen)
    counts = [sum(len(w) for w in line) for line in pieces]
    unknown = sum(1 for line in pieces for w in line for i in w if i == 0)
    byte_pieces = sum(1 for line in pieces for w in line for i in w if 1 <= i <= 256)
    words = sum(len(line) for line in pieces)
    assert words == n_tokens
    print(f"pieces (data/pieces.vocab): unknown pieces {unknown}; {sum(counts)} pieces, {sum(counts) / words:.3f} per "
          f"word, {byte_pieces} byte pieces; sentences over 32 pieces {share(sum(c > 32 for c in counts), len(counts))}, "
          f"over 128 {share(sum(c > 128 for c in counts), len(counts))}; longest {max(counts)}")


if __name__ == "__main__":
    main()
