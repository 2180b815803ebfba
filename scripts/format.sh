#!/usr/bin/env bash
# Formats the project's C++ (core/, wasm/*.cpp, tests/core, tests/fuzz, bench/*.cpp, tools/) with
# clang-format-14 and the repository's .clang-format, or with --check only reports the files that differ
# (non-zero exit), as scripts/test.sh does.
#
#   bash scripts/format.sh            rewrite the files in place
#   bash scripts/format.sh --check    change nothing; fail if any file is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(find core tests/core tests/fuzz tools -name '*.cpp' -o -name '*.hpp'; ls wasm/*.cpp bench/*.cpp)
if [ "${1:-}" = "--check" ]; then
  # shellcheck disable=SC2086
  clang-format-14 --dry-run --Werror $files
else
  # shellcheck disable=SC2086
  clang-format-14 -i $files
fi
