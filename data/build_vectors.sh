#!/usr/bin/env bash
# Rebuilds data/vectors.bin (and data/WORDNET-LICENSE) from WordNet 3.0 glosses with fastText.
# See data/README.md. Needs the Debian packages wordnet-base, fasttext, g++, cmake, libeigen3-dev, catch2
# and python3 (standard library only). Intermediate files go to build/vectors/ (git-ignored).
# CI never runs this; the result is committed. Usage: bash data/build_vectors.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

WORDNET_DIR=${WORDNET_DIR:-/usr/share/wordnet}
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

echo "== 1/5 tokenizer"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native --target attention-tokenize -j2
TOKENIZE=build/native/attention-tokenize

echo "== 2/5 corpus from $WORDNET_DIR"
python3 data/build_vectors.py corpus "$WORDNET_DIR" "$WORK/wordnet.txt"
"$TOKENIZE" < "$WORK/wordnet.txt" > "$WORK/corpus.txt"
wc -lw "$WORK/corpus.txt"
sha256sum "$WORK/corpus.txt"

echo "== 3/5 fastText skipgram ${FASTTEXT_ARGS[*]}"
rm -f "$WORK/model.bin" "$WORK/model.vec"
start=$(date +%s)
fasttext skipgram -input "$WORK/corpus.txt" -output "$WORK/model" "${FASTTEXT_ARGS[@]}"
echo "training took $(( $(date +%s) - start )) s"
rm -f "$WORK/model.bin"  # ~400 MB of subword buckets; only model.vec is used

echo "== 4/5 pack and check"
# shellcheck disable=SC2086
python3 data/build_vectors.py pack "$WORK/model.vec" "$WORK/vectors.bin" "$MAX_BYTES" $REQUIRED
# The same sanity tests CI runs on the committed file (tests/core/test_text.cpp, tag [data]).
cmake --build build/native --target core_tests -j2 >/dev/null
ATTN_VECTORS_FILE="$WORK/vectors.bin" build/native/tests/core/core_tests "[data]" --success | grep -E "row of|passed|failed" || true
ATTN_VECTORS_FILE="$WORK/vectors.bin" build/native/tests/core/core_tests "[data]"
cp "$WORK/vectors.bin" data/vectors.bin
sha256sum data/vectors.bin

echo "== 5/5 licence"
# The licence is the header of every data.* file: lines "  N text  " (two spaces, line number).
sed -n 's/^  [0-9]* \{0,1\}//p' "$WORDNET_DIR/data.noun" | sed 's/ *$//' > data/WORDNET-LICENSE
echo "done: data/vectors.bin ($(stat -c %s data/vectors.bin) bytes), data/WORDNET-LICENSE"
