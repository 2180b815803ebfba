#!/usr/bin/env bash
# Installs what the project needs on a Debian bookworm machine (only what is missing), then the npm
# packages from package-lock.json. Safe to run again; every other script calls it first.
set -euo pipefail
cd "$(dirname "$0")/.."

# pkg-config: the consumer test checks attention-core.pc; doxygen: the C++ reference (scripts/docs.sh);
# poppler-utils: pdfinfo/pdftotext/pdftoppm read the printed class set (tests/web/practice.test.mjs).
packages=(cmake g++ make libeigen3-dev catch2 emscripten nodejs chromium clang-14 libclang-rt-14-dev valgrind clang-format
  pkg-config doxygen poppler-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when the lock changed since the last install. A node_modules that is a symlink (a git
# worktree sharing another checkout's install) is left alone: npm ci would empty the folder it points to.
stamp=node_modules/.package-lock.json
if [ -L node_modules ]; then
  echo "setup: node_modules is a symlink; not reinstalling npm packages through it"
elif [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
