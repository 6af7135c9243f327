#!/bin/sh
# The idempotence scenario, run as root inside the VM of scripts/vm-idempotence.sh by the image's
# oac-vm-run unit: IN is the host's read-only share (node, the bundled reference Core, the
# release, the snapshot script), OUT the writable one (logs, snapshots, times, the verdict).
#
#   sh scenario.sh IN OUT [idempotence|cloud-init]
#
# Each phase appends "NAME SECONDS" to OUT/times. The first failed check prints one line
# "FAIL: …" and exits 1; the host shows that line and the tail of the phase's log.
set -u
in=$1
out=$2
# The image's runner passes no mode: the host leaves it in IN/mode.
mode=${3:-$(cat "$in/mode" 2>/dev/null || echo idempotence)}
# A root login shell's environment: the operator pastes the line into one (a unit gives no HOME).
export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The token stays inside the VM: the line is kept on the VM's tmpfs, never in the host's share.
line=/run/oac-vm/line

fail() {
  echo "FAIL: $*"
  exit 1
}

ms() { echo $(($(date +%s%N) / 1000000)); }

# lap NAME: records the time since the last lap as phase NAME.
lap_ms=$(ms)
lap() {
  now=$(ms)
  echo "$1 $(((now - lap_ms) / 1000)).$(((now - lap_ms) % 1000 / 100))" >>"$out/times"
  lap_ms=$now
}

# timed NAME LOG COMMAND...: runs COMMAND with its output in OUT/LOG as phase NAME; returns its
# status.
timed() {
  name=$1 log=$2
  shift 2
  echo "$log" >"$out/phase"
  lap_ms=$(ms)
  "$@" >"$out/$log" 2>&1
  status=$?
  lap "$name"
  echo "phase $name: exit $status"
  return "$status"
}

core_api() { # METHOD PATH: a Core-key route, the body on stdout; fails on an HTTP error
  # The key from a root-only file, not curl's argv (start_core writes it).
  curl -fsS -X "$1" -H "@$core_auth" -H 'content-type: application/json' \
    ${3+--data "$3"} "$core_url$2"
}

# What the issue claims of this VM, checked rather than assumed.
check_machine() {
  echo "kernel $(uname -r); cgroup fs $(stat -fc %T /sys/fs/cgroup); apparmor $(aa-enabled 2>&1)"
  [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || fail "the VM does not run cgroup v2"
  [ "$(aa-enabled 2>&1)" = Yes ] || fail "AppArmor is not enabled in the VM"
  # Settled: the snapshot's system state is final. Not with cloud-init: its last stage, part of
  # the boot, waits for the line this scenario provides.
  [ "$mode" = cloud-init ] || systemctl is-system-running --wait >/dev/null
  i=0
  until systemctl is-active --quiet docker.service; do
    i=$((i + 1))
    [ "$i" -lt 600 ] || fail "docker.service is not active in the VM"
    sleep 0.1
  done
  driver=$(docker info --format '{{.CgroupDriver}} cgroup v{{.CgroupVersion}}')
  echo "docker: $driver; system: $(systemctl is-system-running)"
  [ "$driver" = "systemd cgroup v2" ] || fail "Docker uses '$driver', not the systemd driver"
}

start_core() {
  "$in/node" "$in/core.mjs" --host 127.0.0.1 --port 0 --release-dir "$in/release" \
    >"$out/core.json" 2>"$out/core.log" &
  core_pid=$!
  i=0
  until [ -s "$out/core.json" ]; do
    i=$((i + 1))
    if [ "$i" -ge 600 ] || ! kill -0 "$core_pid" 2>/dev/null; then fail "the reference Core did not start"; fi
    sleep 0.1
  done
  sleep 0.2 # the line is written in one piece, but let it end
  core_url=$(jq -r .core_url "$out/core.json")
  core_auth=$(dirname "$line")/core-auth
  mkdir -p "$(dirname "$line")"
  (umask 077 && jq -r '"authorization: Bearer " + .core_key' "$out/core.json" >"$core_auth")
  echo "reference Core at $core_url (PID $core_pid)"
}

# The line Core's Web would show, and what a rerun and the uninstall need from it.
issue_line() {
  mkdir -p "$(dirname "$line")"
  (umask 077 && core_api POST /core/v1/sandbox/enrollment-tokens '{}' >"$line.json") ||
    fail "Core issued no install line"
  jq -r .command "$line.json" >"$line"
  token=$(jq -r .token "$line.json")
  rm -f "$line.json"
  sha=$(sed -n 's/.* s="\([0-9a-f]\{64\}\)".*/\1/p' "$line")
  id=$(sed -n 's/.*--installation-id "\([^"]*\)".*/\1/p' "$line")
  if [ -z "$sha" ] || [ -z "$id" ]; then fail "cannot read the installer checksum or installation ID from the line"; fi
  installer=/root/.oac/node-bootstrap/$sha # where the line keeps the verified installer
}

# The kept installer as the line runs it, without the token (a rerun needs none).
kept() { env -u NODE_OPTIONS "$installer" "$@" </dev/null; }
install_args() { echo "install --core-url $core_url --installation-id $id"; }

check_ready() {
  core_api GET /core/v1/sandbox/nodes >"$out/nodes.json" || fail "Core did not list its nodes"
  jq -e '.nodes | length == 1 and .[0].connected and .[0].provider_ready' "$out/nodes.json" \
    >/dev/null || fail "Core does not list one connected and ready node: $(jq -c . "$out/nodes.json")"
  node_id=$(jq -r '.nodes[0].node_id' "$out/nodes.json")
  # Under the name the later waits use: a drifted name would make them pass without waiting.
  systemctl is-active --quiet "oac-node-$id.service" || fail "oac-node-$id.service is not active"
}

# The automation contract (docs/automation.md): the last event a summary with changed false, and
# every step unchanged, kept or skipped.
check_unchanged() {
  jq -se '
    (.[-1].type == "summary") and (.[-1].changed == false) and
    ([.[] | select(.type == "step-done") | .result.outcome] |
      all(. == "unchanged" or . == "kept" or . == "skipped"))' "$out/$1" >/dev/null ||
    fail "the rerun changed something: $(grep -v '"outcome":"unchanged"' "$out/$1" | tail -n 5)"
}

remove_in_core() {
  core_api DELETE "/core/v1/sandbox/nodes/$node_id" >/dev/null || fail "Core did not remove the node"
  # The node learns of its removal and stops for good (exit 78); uninstall needs it stopped.
  i=0
  while systemctl is-active --quiet "oac-node-$id.service"; do
    i=$((i + 1))
    [ "$i" -lt 600 ] || fail "oac-node-$id.service still runs 60 s after Core removed the node"
    sleep 0.1
  done
}

check_apparmor() {
  journalctl -k -b --no-pager >"$out/kernel.log" 2>&1
  denials=$(grep -c 'apparmor="DENIED"' "$out/kernel.log")
  [ "$denials" -eq 0 ] || fail "$denials AppArmor denials: $(grep -m 1 'apparmor="DENIED"' "$out/kernel.log")"
}

idempotence() {
  sh "$in/snapshot.sh" >"$out/before.snap" 2>&1 || fail "the snapshot before install failed"
  lap snapshot
  timed install install.log sh <"$line" || fail "install (the pasted line) exited $status"
  check_ready
  timed rerun-line rerun-line.log sh <"$line" || fail "the rerun of the pasted line exited $status"
  # shellcheck disable=SC2046 # install_args: words without spaces, split on purpose
  timed rerun-json rerun.ndjson kept $(install_args) --json || fail "the --json rerun exited $status"
  check_unchanged rerun.ndjson
  # shellcheck disable=SC2046
  timed dry-run dry-run.log kept $(install_args) --dry-run || fail "install --dry-run exited $status (0: nothing would change)"
  timed status status.log kept status --installation-id "$id" || fail "oac-node status exited $status"
  lap_ms=$(ms)
  remove_in_core
  lap removal-in-core
  timed uninstall uninstall.log kept uninstall --installation-id "$id" || fail "uninstall exited $status"
  sh "$in/snapshot.sh" >"$out/after.snap" 2>&1 || fail "the snapshot after uninstall failed"
  check_apparmor
  lap snapshot+checks
}

# Item 5 of issue #15: the line run by cloud-init's runcmd at first boot (the user-data
# scripts/vm/user-data.yaml, on a NoCloud seed disk). This scenario plays the provisioning system: it
# drops the line into the file the user-data reads, and removes it once cloud-init is done.
cloud_init() {
  install -d -m 0700 /run/oac-node-provision
  install -m 0600 "$line" /run/oac-node-provision/install-line
  lap provision
  timed cloud-init cloud-init.log cloud-init status --wait --long
  rm -f /run/oac-node-provision/install-line
  cp /var/log/cloud-init-output.log "$out/cloud-init-output.log"
  echo cloud-init-output.log >"$out/phase" # the log a failure below shows
  grep -q 'is connected and ready' "$out/cloud-init-output.log" ||
    fail "the install's output is not in cloud-init's log"
  check_ready
  echo cloud-init.log >"$out/phase"
  grep -q '^status: done' "$out/cloud-init.log" ||
    fail "cloud-init did not finish cleanly: $(grep -m 1 '^status' "$out/cloud-init.log")"
  # The token reached no file cloud-init keeps (its user-data, its logs), none of the node's and
  # none in the usual places to drop one. It is searched for from a root-only file on the tmpfs,
  # never in grep's argv. Each place must exist: a renamed one would drop out unseen.
  needle=$(dirname "$line")/needle
  (umask 077 && printf '%s\n' "$token" >"$needle")
  for dir in /var/lib/cloud /var/log /etc /var/lib/oac-node /root /home /tmp /var/tmp /var/cache \
    /usr/local /opt "$out"; do
    [ -d "$dir" ] || fail "$dir is missing: the token search cannot look there"
    if grep -r -l -F -f "$needle" "$dir"; then fail "the enrollment token is in a file (above)"; fi
  done
  rm -f "$needle"
  check_apparmor
}

check_machine
lap settle
start_core
issue_line
lap core-start
case $mode in
  idempotence) idempotence ;;
  cloud-init) cloud_init ;;
  *) fail "unknown scenario $mode" ;;
esac
kill "$core_pid"
echo "scenario passed"
