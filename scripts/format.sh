#!/usr/bin/env bash
# Formats the project's code, or with --check only reports what differs (non-zero exit), as
# scripts/test.sh does: the C++ (core/, wasm/*.cpp and *.hpp, tests/core, tests/fuzz, tests/consumer, examples/cpp,
# bench/*.cpp, tools/) with clang-format-14 and .clang-format; the JavaScript, its types and the CSS
# (web/, wasm/*.js, tests, scripts, bench) with npm's prettier and .prettierrc.json.
#
#   bash scripts/format.sh            rewrite the files in place
#   bash scripts/format.sh --check    change nothing; fail if any file is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(find core tests/core tests/fuzz tests/consumer examples/cpp tools -name '*.cpp' -o -name '*.hpp'; ls wasm/*.cpp wasm/*.hpp bench/*.cpp)
web=("web/**/*.{js,css,ts}" "wasm/*.{js,ts}" "tests/**/*.mjs" "scripts/*.mjs" "bench/*.mjs")
if [ "${1:-}" = "--check" ]; then
  # shellcheck disable=SC2086
  clang-format-14 --dry-run --Werror $files
  node_modules/.bin/prettier --check --log-level warn "${web[@]}"
else
  # shellcheck disable=SC2086
  clang-format-14 -i $files
  node_modules/.bin/prettier --write --log-level warn "${web[@]}"
fi
