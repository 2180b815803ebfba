#!/usr/bin/env bash
# Model file size, parse time and forward time (T = 7 and T = 32), natively (g++ -O3, as the Release
# build) and in wasm under node (the module from scripts/build.sh). Usage: bash model/measure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/model
g++ -std=c++17 -O3 -DNDEBUG -Icore/include $(pkg-config --cflags eigen3) model/measure_native.cpp core/src/*.cpp \
  -o build/model/measure_native
echo "data/model.bin: $(stat -c %s data/model.bin) bytes"
build/model/measure_native data/model.bin
node --no-experimental-fetch model/measure.mjs "${1:-build/wasm}"
