#!/usr/bin/env bash
# The README's first command: builds the executable and a release from it, then runs
# scripts/demo.ts (a local reference Core, a token, a node registered and run for real, removed).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "==> Building the executable (dist/oac-node)"
npm run build --silent
echo "==> Building a release from it (.release/)"
npm run release --silent
node --import tsx scripts/demo.ts
