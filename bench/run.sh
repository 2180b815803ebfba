#!/usr/bin/env bash
# The benchmark: builds the driver natively and for wasm, runs it and every peer on identical inputs,
# prints one table (medians, GFLOP/s, ratios ours/peer) and writes bench/results.json.
#
#   bash bench/run.sh            everything (several minutes; quiet machine preferred)
#   bash bench/run.sh --smoke    tiny harness check: T = 64, 2 reps, native + wasm + plain JS + the shipped
#                                module, and the page's crossings (bench/crossing.mjs, 2 reps); fails only
#                                if an implementation errors or the outputs disagree (never on timings)
#
# Needs: scripts/setup.sh's packages; for the full run also python3-torch (apt), bench/package.json's npm
# peers (installed here on first use) and build/site (built here by scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=full
[ "${1:-}" = "--smoke" ] && mode=smoke
jobs=$(nproc)
out=build/bench-results/$mode
rm -rf "$out"
mkdir -p "$out"
started=$(date +%s)
# --no-liftoff: V8 compiles every wasm function with its optimising tier up front, so the medians time
# steady-state code rather than the baseline tier before a background tier-up lands (which, on a busy
# machine, can take many repetitions). Used for every wasm implementation alike (ours, tfjs, ORT).
node_run=(node --no-experimental-fetch --no-liftoff)

if [ $mode = smoke ]; then
  # Reuse the test builds (build/native, build/wasm): only the driver is compiled on top of them.
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTN_BENCH=ON >/dev/null
  cmake --build build/native -j"$jobs" --target attention_bench >/dev/null
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DATTN_BENCH=ON \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch" >/dev/null
  cmake --build build/wasm -j"$jobs" >/dev/null                          # the shipped module too
  cmake --build build/wasm -j"$jobs" --target attention_bench >/dev/null
  echo "bench smoke: native (build/native), wasm -msimd128 (build/wasm), plain JS, shipped module, nearest words"
  build/native/bench/attention_bench --smoke --label native >"$out/native.json"
  "${node_run[@]}" build/wasm/bench/attention_bench.cjs --smoke --label wasm-simd >"$out/wasm-simd.json"
  node bench/plain.mjs --smoke >"$out/plain.json"
  node bench/shipped.mjs --smoke >"$out/shipped.json"
  node --no-liftoff bench/nearest.mjs --smoke >"$out/nearest.json"
  node bench/crossing.mjs --smoke >"$out/crossing.json"
  node bench/first-figure.mjs --smoke >"$out/first-figure.json"
  node bench/report.mjs --smoke "$out"
  echo "bench smoke: done in $(( $(date +%s) - started )) s"
  exit 0
fi

echo "== load before the run: $(uptime)"
pgrep -fa 'fuzz' | grep -v pgrep | sed 's/^/   busy: /' | cut -c1-120 || true

echo "== builds"
bash bench/build.sh native portable wasm-scalar wasm-simd
bash scripts/build.sh >/dev/null                       # build/wasm (shipped module) and build/site
if [ ! -d bench/node_modules ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  (cd bench && npm ci --no-audit --no-fund --loglevel=error)
fi
py=/usr/bin/python3
if ! $py -c 'import torch' 2>/dev/null; then
  echo "bench: python3-torch is missing: apt-get install -y python3-torch" >&2
  exit 1
fi

echo "== ours (the same driver source, four builds)"
build/bench-native/bench/attention_bench --label native >"$out/native.json"
build/bench-portable/bench/attention_bench --label portable >"$out/portable.json"
"${node_run[@]}" build/bench-wasm-scalar/bench/attention_bench.cjs --label wasm-scalar >"$out/wasm-scalar.json"
"${node_run[@]}" build/bench-wasm-simd/bench/attention_bench.cjs --label wasm-simd >"$out/wasm-simd.json"
echo "== peers"
node bench/plain.mjs >"$out/plain.json"
"${node_run[@]}" bench/tfjs.mjs >"$out/tfjs.json"
"${node_run[@]}" bench/ort.mjs >"$out/ort.json"
echo "== fixed SIMD, relaxed SIMD (FMA) and ORT through their JS APIs, interleaved, in node and in chromium"
"${node_run[@]}" --experimental-wasm-relaxed-simd bench/relaxed.mjs >"$out/relaxed-node.json"
node bench/relaxed.mjs --browser >"$out/relaxed-chromium.json" || echo "bench: the chromium race failed (see above); its rows are missing" >&2
$py bench/torch_bench.py >"$out/torch.json"
echo "== shipped module (JS API, sizes), the page's crossings per change, nearest words against plain JS, and the page in chromium"
"${node_run[@]}" bench/shipped.mjs >"$out/shipped.json"
"${node_run[@]}" bench/crossing.mjs >"$out/crossing.json"
"${node_run[@]}" bench/nearest.mjs >"$out/nearest.json"
# The page belongs to another part of the project and may be mid-change: a failure here is reported, not fatal.
node bench/browser.mjs >"$out/browser.json" || echo "bench: the browser step failed (see above); its rows are missing" >&2
node bench/first-figure.mjs >"$out/first-figure.json" || echo "bench: the first-figure step failed (see above); its rows are missing" >&2

echo "== peak memory at T = 4096 (one run each, /usr/bin/time -v)"
memory() {  # name, command...: max RSS in KiB (and the JSON the command printed)
  local name=$1; shift
  /usr/bin/time -v "$@" >"$out/mem-$name.json" 2>"$out/mem-$name.txt" || { cat "$out/mem-$name.txt" >&2; return 1; }
  grep 'Maximum resident set size' "$out/mem-$name.txt" | awk -v n="$name" '{print n, $NF}' >>"$out/memory.txt"
}
: >"$out/memory.txt"
memory native-full build/bench-native/bench/attention_bench --only full --T 4096 --reps 1
memory native-output build/bench-native/bench/attention_bench --only output --T 4096 --reps 1
memory wasm-full "${node_run[@]}" build/bench-wasm-simd/bench/attention_bench.cjs --only full --T 4096 --reps 1
memory wasm-output "${node_run[@]}" build/bench-wasm-simd/bench/attention_bench.cjs --only output --T 4096 --reps 1
memory wasm-none "${node_run[@]}" build/bench-wasm-simd/bench/attention_bench.cjs --only none --reps 1
echo "== load after the run: $(uptime)"

node bench/report.mjs "$out" --load "$(cat /proc/loadavg)" --seconds $(( $(date +%s) - started ))
echo "bench: done in $(( $(date +%s) - started )) s; results in bench/results.json"
