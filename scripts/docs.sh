#!/usr/bin/env bash
# Builds the C++ reference (Doxygen over core/include/attention, front page docs/reference/mainpage.md)
# into build/docs/html. Fails on any Doxygen warning, an undocumented public function or type included
# (docs/reference/Doxyfile: WARN_IF_UNDOCUMENTED, WARN_AS_ERROR), so scripts/test.sh keeps it complete.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v doxygen >/dev/null || bash scripts/setup.sh
# The version on the pages is the CMake project's.
ATTN_VERSION=$(sed -n 's/^project(.*VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
export ATTN_VERSION
rm -rf build/docs/html
mkdir -p build/docs
doxygen docs/reference/Doxyfile
echo "docs: build/docs/html/index.html (attention core $ATTN_VERSION)"
