#!/usr/bin/env bash
# Builds the WebAssembly module (build/wasm) and the static site (build/site). Assumes setup.sh ran.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Debian's emcmake passes an emulator flag node 20 rejects; give CTest a working one.
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch" >/dev/null
cmake --build build/wasm -j"$jobs"
node scripts/build-site.mjs
