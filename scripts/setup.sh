#!/usr/bin/env bash
# Installs what a fresh machine of this kind lacks for the demo and the tests: Debian packages
# (Docker engine, iptables for dockerd, a static busybox for the Runtime image, shellcheck,
# tinyproxy for the proxy tests, systemd-container + debootstrap + iproute2 for the throwaway
# e2e hosts, openssl for the TLS test certificates, tmux for the terminal test, ansible for the
# fleet test of deploy/ansible, zsh and fish for the completion tests and, with mksh and tcsh, for
# the line in every shell (issue #42), gcc and libc6-dev for the clock-setting library of
# test/e2e/faults-clock.test.ts) and the npm dependencies from
# package-lock.json. Idempotent; quiet when there is nothing to do.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(docker.io iptables busybox-static shellcheck tinyproxy systemd-container debootstrap iproute2 openssl tmux ansible ansible-lint zsh fish mksh tcsh graphviz gcc libc6-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
