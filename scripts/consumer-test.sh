#!/usr/bin/env bash
# The consumer test (scripts/test.sh runs it): configure and build the core on its own (tests off, as a
# packager would), `cmake --install` it into a temporary prefix, check that only the library, its headers,
# the package files (and docs) landed, then build tests/consumer outside the tree against it, once with
# find_package(attention) and once with pkg-config, run both and check seed 003's softmax row.
#
#   bash scripts/consumer-test.sh     (ATTN_KEEP=1 keeps the temporary directory and prints it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
if [ "${ATTN_KEEP:-}" = 1 ]; then echo "consumer-test: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
prefix=$tmp/prefix
expected="softmax row 1: 0.0634 0.4683 0.4683"

cmake -S "$root" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF >/dev/null
cmake --build "$tmp/build" -j2 >/dev/null
cmake --install "$tmp/build" --prefix "$prefix" >/dev/null

# What was installed: every file of the manifest must be the library, a public header, the CMake package
# or the pkg-config file (or the generated reference); and each of those must be there.
manifest=$tmp/build/install_manifest.txt
sed "s|^$prefix/||" "$manifest" | sort >"$tmp/installed"
echo "installed (cmake --install, $(wc -l <"$tmp/installed") files):"
sed 's/^/  /' "$tmp/installed"
if grep -Ev '^(include/attention/[a-z_]+\.hpp|lib[^/]*/libattention_core\.(a|so[.0-9]*)|lib[^/]*/cmake/attention/attention(Config|ConfigVersion|Targets|Targets-[a-z]+)\.cmake|lib[^/]*/pkgconfig/attention-core\.pc|share/doc/attention/.*)$' \
  "$tmp/installed"; then
  echo "consumer-test: FAIL: the files above are not the library, its headers, package files or docs" >&2
  exit 1
fi
for header in "$root"/core/include/attention/*.hpp; do
  grep -qx "include/attention/$(basename "$header")" "$tmp/installed" ||
    { echo "consumer-test: FAIL: $(basename "$header") not installed" >&2; exit 1; }
done
for f in 'libattention_core\.' attentionConfig.cmake attentionConfigVersion.cmake attentionTargets.cmake attention-core.pc; do
  grep -q "$f" "$tmp/installed" || { echo "consumer-test: FAIL: no $f installed" >&2; exit 1; }
done
# The files on disk are exactly the manifest's (nothing installed around it).
(cd "$prefix" && find . -type f | sed 's|^\./||' | sort) | diff -u "$tmp/installed" - ||
  { echo "consumer-test: FAIL: the prefix holds files the manifest does not list" >&2; exit 1; }

# A project outside the tree: find_package(attention 0.1 CONFIG REQUIRED), attention::core.
cmake -S "$root/tests/consumer" -B "$tmp/consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
out=$("$tmp/consumer/consumer")
echo "find_package consumer: $out"
[ "$out" = "$expected" ] || { echo "consumer-test: FAIL: expected '$expected'" >&2; exit 1; }

# The same program through the pkg-config file.
flags=$(PKG_CONFIG_PATH="$(dirname "$(grep 'attention-core\.pc$' "$manifest")")" pkg-config --cflags --libs attention-core)
echo "pkg-config --cflags --libs attention-core: $flags"
# shellcheck disable=SC2086
g++ -std=c++17 -O2 "$root/tests/consumer/main.cpp" $flags -o "$tmp/consumer-pc"
out=$("$tmp/consumer-pc")
echo "pkg-config consumer: $out"
[ "$out" = "$expected" ] || { echo "consumer-test: FAIL: expected '$expected'" >&2; exit 1; }
echo "consumer-test: ok"
