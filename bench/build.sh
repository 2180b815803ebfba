#!/usr/bin/env bash
# Builds the benchmark driver in one directory per variant (the same source every time):
#   build/bench-native    clang++ -O3 -march=native        build/bench-portable   clang++ -O3 (x86-64 baseline)
#   build/bench-wasm-scalar  emcc -O3, no SIMD            build/bench-wasm-simd  emcc -O3 -msimd128 (shipped flags)
#   build/bench-wasm-relaxed emcc -O3 -msimd128, the kernels with relaxed-SIMD multiply-adds (attention_bench_relaxed,
#                            opcodes renumbered by scripts/relaxed-simd.mjs); node --experimental-wasm-relaxed-simd
# Usage: bash bench/build.sh [native|portable|wasm-scalar|wasm-simd|wasm-relaxed ...] (default: the first four)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
variants=("$@")
((${#variants[@]})) || variants=(native portable wasm-scalar wasm-simd)
cxx=$(command -v clang++-14 || command -v clang++ || command -v c++)
emulator="-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch"
for v in "${variants[@]}"; do
  dir=build/bench-$v
  case $v in
    native)   cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DBUILD_TESTING=OFF \
                -DATTN_BENCH=ON "-DCMAKE_CXX_FLAGS=-march=native" >/dev/null ;;
    portable) cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DBUILD_TESTING=OFF \
                -DATTN_BENCH=ON "-DCMAKE_CXX_FLAGS=" >/dev/null ;;
    wasm-scalar)  emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$emulator" -DATTN_BENCH=ON "-DATTN_WASM_SIMD=" >/dev/null ;;
    wasm-simd)    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$emulator" -DATTN_BENCH=ON "-DATTN_WASM_SIMD=-msimd128" >/dev/null ;;
    wasm-relaxed) emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$emulator" -DATTN_BENCH=ON "-DATTN_WASM_SIMD=-msimd128" >/dev/null
                  cmake --build "$dir" -j"$jobs" --target attention_bench_relaxed >/dev/null
                  echo "bench: built $dir (attention_bench_relaxed)"
                  continue ;;
    *) echo "bench/build.sh: unknown variant $v" >&2; exit 2 ;;
  esac
  cmake --build "$dir" -j"$jobs" --target attention_bench >/dev/null
  echo "bench: built $dir"
done
