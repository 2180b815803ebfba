#!/usr/bin/env bash
# One command for a newcomer: install what is missing, build, and serve the page on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs build/site "${PORT:-8080}"
