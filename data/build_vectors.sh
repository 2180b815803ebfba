#!/usr/bin/env bash
# Rebuilds data/vectors.bin (and data/WORDNET-LICENSE) from WordNet 3.0 glosses with fastText, and from
# the same fastText model data/vectors-composed.bin (vectors composed from character n-grams for the words
# of Debian's wamerican list that the table lacks), data/vectors-ngrams.bin (the trained n-gram rows, the
# last resort for any other word) and the subword references of tests/reference/.
# See data/README.md. Needs the Debian packages wordnet-base, wamerican, fasttext, g++, cmake,
# libeigen3-dev, catch2 and python3 (standard library only). Intermediate files go to build/vectors/ (git-ignored).
# CI never runs this; the result is committed. Usage: bash data/build_vectors.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

WORDNET_DIR=${WORDNET_DIR:-/usr/share/wordnet}
WORD_LIST=${WORD_LIST:-/usr/share/dict/american-english}
# How many words outside the table the subword reference holds (tests/core/test_subwords.cpp).
REFERENCE_WORDS=250
WORK=build/vectors
MAX_BYTES=1500000
# Words the page's example sentences need; the build fails if any of them is not kept.
REQUIRED="the train left station on time he cashed a check at bank"
# fastText skip-gram parameters (documented in data/README.md). -thread 1 + fixed -seed: reproducible.
# -lr (0.05) and -t (1e-4) are left at their defaults on purpose: fastText parses those flags as
# float32, so spelling the default out changes the value slightly (and the output bytes).
FASTTEXT_ARGS=(-dim 50 -epoch 10 -minCount 7 -ws 5 -neg 5 -minn 3 -maxn 6 -thread 1 -seed 1 -verbose 1)

export LC_ALL=C
mkdir -p "$WORK"

for f in data.noun data.verb data.adj data.adv; do
  [[ -r "$WORDNET_DIR/$f" ]] || { echo "missing $WORDNET_DIR/$f (apt-get install wordnet-base)" >&2; exit 1; }
done
grep -q 'WordNet 3.0 Copyright' "$WORDNET_DIR/data.noun" || { echo "$WORDNET_DIR is not WordNet 3.0" >&2; exit 1; }
command -v fasttext >/dev/null || { echo "fasttext not found (apt-get install fasttext)" >&2; exit 1; }
[[ -r "$WORD_LIST" ]] || { echo "missing $WORD_LIST (apt-get install wamerican)" >&2; exit 1; }

echo "== 1/6 tokenizer"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target attention-tokenize -j2
TOKENIZE=build/native/attention-tokenize

echo "== 2/6 corpus from $WORDNET_DIR"
python3 data/build_vectors.py corpus "$WORDNET_DIR" "$WORK/wordnet.txt"
"$TOKENIZE" < "$WORK/wordnet.txt" > "$WORK/corpus.txt"
wc -lw "$WORK/corpus.txt"
sha256sum "$WORK/corpus.txt"

echo "== 3/6 fastText skipgram ${FASTTEXT_ARGS[*]}"
rm -f "$WORK/model.bin" "$WORK/model.vec"
start=$(date +%s)
fasttext skipgram -input "$WORK/corpus.txt" -output "$WORK/model" "${FASTTEXT_ARGS[@]}"
echo "training took $(( $(date +%s) - start )) s"

echo "== 4/6 pack and check"
# shellcheck disable=SC2086
python3 data/build_vectors.py pack "$WORK/model.vec" "$WORK/vectors.bin" "$MAX_BYTES" $REQUIRED
# The same sanity tests CI runs on the committed file (tests/core/test_text.cpp, tag [data]).
cmake --build build/native --target core_tests -j2 >/dev/null
ATTN_VECTORS_FILE="$WORK/vectors.bin" build/native/tests/core/core_tests "[data]" --success | grep -E "row of|passed|failed" || true
ATTN_VECTORS_FILE="$WORK/vectors.bin" build/native/tests/core/core_tests "[data]"
cp "$WORK/vectors.bin" data/vectors.bin
sha256sum data/vectors.bin

echo "== 5/6 subwords: composed vectors for $WORD_LIST, the reference for the core's composition"
python3 data/build_subwords.py words "$WORK/model.bin" data/vectors.bin "$WORD_LIST" "$WORK/vectors-composed.bin"
python3 data/build_subwords.py reference "$WORK/model.bin" data/vectors.bin "$WORD_LIST" "$REFERENCE_WORDS" \
  "$WORK/subword_words.txt" "$WORK/subword_ngrams.bin"
fasttext print-word-vectors "$WORK/model.bin" < "$WORK/subword_words.txt" | sed 's/ *$//' > "$WORK/subword_vectors.txt"
# The script's composition (which made vectors-composed.bin) must be fastText's own.
python3 data/build_subwords.py check "$WORK/model.bin" "$WORK/subword_words.txt" "$WORK/subword_vectors.txt"
# The n-gram last resort: every trained bucket row, keyed by bucket, and its golden on words outside both lists
# (tests/reference/ngram_words.txt: the 300 commonest such tokens of Debian's package descriptions,
# model/measure_coverage.py; committed, so this step needs no apt index).
python3 data/build_subwords.py ngrams "$WORK/model.bin" "$WORK/vectors-ngrams.bin"
fasttext print-word-vectors "$WORK/model.bin" < tests/reference/ngram_words.txt | sed 's/ *$//' > "$WORK/ngram_vectors.txt"
python3 data/build_subwords.py check "$WORK/model.bin" tests/reference/ngram_words.txt "$WORK/ngram_vectors.txt"
cp "$WORK/vectors-ngrams.bin" data/vectors-ngrams.bin
cp "$WORK/ngram_vectors.txt" tests/reference/
cp "$WORK/vectors-composed.bin" data/vectors-composed.bin
cp "$WORK/subword_ngrams.bin" "$WORK/subword_vectors.txt" tests/reference/
rm -f "$WORK/model.bin"  # ~400 MB of subword buckets: everything needed from them is written above
sha256sum data/vectors-composed.bin data/vectors-ngrams.bin tests/reference/subword_ngrams.bin
echo "== 6/6 licences"
# The licence is the header of every data.* file: lines "  N text  " (two spaces, line number).
sed -n 's/^  [0-9]* \{0,1\}//p' "$WORDNET_DIR/data.noun" | sed 's/ *$//' > data/WORDNET-LICENSE
# vectors-composed.bin lists words of wamerican (SCOWL): its copyright notice travels with it.
cp /usr/share/doc/wamerican/copyright data/SCOWL-LICENSE
echo "done: data/vectors.bin ($(stat -c %s data/vectors.bin) bytes), data/WORDNET-LICENSE"
