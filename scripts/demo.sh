#!/usr/bin/env bash
# The README's first command: builds the executable, then runs scripts/demo.ts: a throwaway
# Debian 12 host with systemd and Docker, the reference Core, the one-line install command
# pasted into the host, the node connected and ready in Core, a rerun that changes nothing, and
# the uninstall after Core removed the node. `bash scripts/demo.sh --tls`: the same with Core
# over HTTPS under a private CA, the line pinning its key (docs/private-ca.md).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "==> Building the executable (dist/oac-node)"
npm run build --silent
node --import tsx scripts/demo.ts "$@"
