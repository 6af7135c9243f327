#!/usr/bin/env bash
# The README's first command. Today it shows the foundation: the executable built, a release
# made from it, a local reference Core serving that release, an enrollment token issued, and the
# install command Core returns with it. (The install itself lands with issue #4; until then the
# command field is null and the demo says so.)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "==> Building the executable (dist/oac-node)"
npm run build --silent
echo "==> Building a release from it (.release/)"
npm run release --silent

work=$(mktemp -d)
core_pid=
cleanup() {
  [ -z "$core_pid" ] || kill -TERM "$core_pid" 2>/dev/null || true
  [ -z "$core_pid" ] || wait "$core_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "==> Starting the reference Core"
node --import tsx fixtures/core/main.ts --port 0 >"$work/core.json" 2>"$work/core.log" &
core_pid=$!
for _ in $(seq 100); do [ -s "$work/core.json" ] && break; sleep 0.1; done
[ -s "$work/core.json" ] || { cat "$work/core.log" >&2; echo "demo: the reference Core did not start" >&2; exit 1; }
field() { node -e 'const o=JSON.parse(require("fs").readFileSync(0,"utf8"));const v=process.argv[1].split(".").reduce((a,k)=>a?.[k],o);console.log(typeof v==="object"?JSON.stringify(v,null,2):v)' "$1"; }
core_url=$(field core_url <"$work/core.json")
core_key=$(field core_key <"$work/core.json")
echo "    Core:     $core_url"
echo "    release:  $(field release_url <"$work/core.json")"

# The Core key goes to curl through a file, not argv.
printf 'header = "Authorization: Bearer %s"\n' "$core_key" >"$work/auth"
api() { curl -fsS -K "$work/auth" -H 'content-type: application/json' "$@"; }

echo "==> The deployment"
api "$core_url/core/v1/sandbox/deployment" | field . | sed 's/^/    /'
echo "==> Issuing an enrollment token (Web's Add node)"
api -X POST -d '{"max_active": 2, "ttl_seconds": 3600}' "$core_url/core/v1/sandbox/enrollment-tokens" >"$work/token.json"
echo "    expires_at: $(field expires_at <"$work/token.json")"
command=$(field command <"$work/token.json")
if [ "$command" = "null" ] || [ "$command" = "undefined" ]; then
  echo "    command:    (none yet: the one-line install command lands with issue #4)"
else
  echo "==> The install command to paste on a host"
  echo "$command"
fi
echo "==> The installer the console serves"
curl -fsS "$core_url/node-install/SHA256SUMS" | sed 's/^/    /'
echo "==> Nodes"
api "$core_url/core/v1/sandbox/nodes" | field nodes | sed 's/^/    /'
echo "==> Done: Core stopped."
