#!/usr/bin/env bash
# Every test: native Catch2 (plain and under ASan+UBSan), the wasm module under node, and the page in
# headless Chromium. Installs what is missing first. Exits non-zero on the first failing suite.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/setup.sh

echo "== format: C++ (clang-format-14) and JavaScript, types, CSS (prettier); bash scripts/format.sh fixes it"
bash scripts/format.sh --check

echo "== types: tsc holds wasm/attention.js and the widget to their hand-written .d.ts (tsconfig.check.json)"
node_modules/.bin/tsc -p tsconfig.check.json

echo "== native tests (Release)"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"
ctest --test-dir build/native --output-on-failure -j"$jobs"

echo "== consumer test: cmake --install the core into a temporary prefix, build tests/consumer against it (find_package, pkg-config)"
bash scripts/consumer-test.sh

echo "== C++ reference: Doxygen over the public headers into build/docs/html (any warning fails, undocumented API included)"
bash scripts/docs.sh

echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DATTN_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j"$jobs"

echo "== native tests under valgrind memcheck"
# The Release build from above, every test (golden cases included; ATTN_GOLDEN_LIMIT=n would check
# only n per variant).
valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect -q \
  build/native/tests/core/core_tests

echo "== fuzz smoke: each libFuzzer target for 60 s (clang, ASan + UBSan)"
bash scripts/fuzz.sh 60

echo "== wasm module (node) and page (headless Chromium)"
bash scripts/build.sh

echo "== benchmark harness smoke (bench/run.sh --smoke: outputs must agree; no timing is checked)"
bash bench/run.sh --smoke

node --test tests/wasm/ tests/web/

echo "== the relaxed-SIMD module (attention_wasm_relaxed.wasm, fused multiply-adds) through the small module's tests"
ATTN_WASM_FILE=attention_wasm_relaxed.wasm node --experimental-wasm-relaxed-simd --test tests/wasm/accuracy.test.mjs \
  tests/wasm/attention.test.mjs tests/wasm/golden.test.mjs tests/wasm/keep.test.mjs tests/wasm/nearest.test.mjs \
  tests/wasm/resources.test.mjs tests/wasm/output-path.test.mjs tests/wasm/self-attention.test.mjs
