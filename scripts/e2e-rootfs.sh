#!/usr/bin/env bash
# The root file system of the e2e tier's throwaway hosts (docs/e2e-hosts.md): Debian with
# systemd as PID 1 and a Docker engine, built once with debootstrap and cached under a name that
# is the hash of the build recipe, so it is rebuilt only when the recipe below changes. Tests
# never write to it: each boot puts a fresh overlay on top (test/e2e/harness/host.ts).
# Debian 12 (bookworm) is the host of the whole e2e tier; 11 (bullseye) and 13 (trixie) are the
# distribution matrix's (HOST-12, docs/supported-hosts.md), built with fewer packages.
#
#   bash scripts/e2e-rootfs.sh build [SUITE]  # build if missing (about 2 minutes), print the path
#   bash scripts/e2e-rootfs.sh path [SUITE]   # print the path the current recipe builds (no build)
#   bash scripts/e2e-rootfs.sh build-all      # bookworm, then the matrix's suites
#   bash scripts/e2e-rootfs.sh clean   # remove what finished or killed test runs left (hosts kept
#                                      # with OAC_E2E_KEEP=1 too): containers, veths, cgroups,
#                                      # scratch dirs; and builds of older recipes when idle
#
# Environment: OAC_E2E_CACHE (default /var/cache/oac-e2e) holds the builds; OAC_E2E_SCRATCH
# (default /var/tmp/oac-e2e) the per-boot scratch dirs; OAC_E2E_MIRROR overrides the Debian
# mirror, which is otherwise the one this machine's apt already uses.
set -euo pipefail
# shellcheck source=scripts/debian-mirror.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"

CACHE=${OAC_E2E_CACHE:-/var/cache/oac-e2e}
SCRATCH=${OAC_E2E_SCRATCH:-/var/tmp/oac-e2e}
# Every machine, scratch dir and cgroup the harness creates is named oac-e2e-<number>, its veth
# ve-oac-e2e-<number> (test/e2e/harness/rootfs.ts): `clean` touches nothing else.
MACHINE_PREFIX=oac-e2e-

SUITES=(bookworm bullseye trixie) # the first is the default: the host of the whole e2e tier

# ---- the recipe: everything below up to "end of recipe" is hashed into the cache name --------
VARIANT=minbase
# sha256sum (coreutils), flock (util-linux), gzip, sh (dash), sudo and curl: what the one-line
# install command runs. passwd (useradd) and login come with minbase.
# tinyproxy: the proxy an e2e test makes the host's only route to Core (issue #12, DL-04); its
# own service stays off, the test starts it with its own configuration.
# openssh-server and python3: what Ansible needs of a managed host (issue #15, FLEET-01); sshd
# stays off, the Ansible test starts it.
# zsh, mksh, busybox, fish and tcsh: the shells operators paste the line into (issue #42).
SHELLS=zsh,mksh,busybox,fish,tcsh
BASE=systemd,systemd-sysv,dbus,docker.io,iptables,curl,sudo,ca-certificates,gzip,util-linux,procps,iproute2
# The matrix's hosts only run the line, a rerun, status and uninstall: no proxy, no Ansible.
# Debian 13 moved the docker command to its own package (docker.io only recommends it); the
# installer speaks to Docker's API, the tests' snapshots use the command.
include() {
  case $1 in
    bookworm) echo "$BASE,tinyproxy,openssh-server,python3,$SHELLS" ;;
    trixie) echo "$BASE,docker-cli" ;;
    *) echo "$BASE" ;;
  esac
}

customize() {
  local root=$1
  echo oac-e2e >"$root/etc/hostname"
  echo '127.0.1.1 oac-e2e' >>"$root/etc/hosts" # sudo resolves the host name
  : >"$root/etc/machine-id" # empty: systemd makes a transient ID at each boot

  # systemd-nspawn mounts the cgroup-v1 controllers read-only, and runc then fails with
  # "read-only file system". A bind remount makes them writable (a plain remount,rw is "busy").
  cat >"$root/usr/local/sbin/oac-e2e-cgroup-rw" <<'EOF'
#!/bin/sh
# Remounts each cgroup file system under /sys/fs/cgroup read-write (see the unit).
for d in /sys/fs/cgroup /sys/fs/cgroup/*; do
  if [ -d "$d" ] && mountpoint -q "$d"; then mount -o remount,bind,rw "$d" || exit 1; fi
done
EOF
  chmod 0755 "$root/usr/local/sbin/oac-e2e-cgroup-rw"
  cat >"$root/etc/systemd/system/oac-e2e-cgroup-rw.service" <<'EOF'
[Unit]
Description=Writable cgroup-v1 controllers for runc under systemd-nspawn (e2e test host)
DefaultDependencies=no
Before=sysinit.target containerd.service docker.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/oac-e2e-cgroup-rw

[Install]
WantedBy=sysinit.target
EOF
  systemctl --root="$root" enable oac-e2e-cgroup-rw.service containerd.service docker.service
  # No unattended apt runs (they would try the network) in a host that lives a few seconds.
  systemctl --root="$root" mask apt-daily.timer apt-daily-upgrade.timer tinyproxy.service
  if [ -e "$root/lib/systemd/system/ssh.service" ]; then systemctl --root="$root" disable ssh.service; fi

  # A non-root user who may use sudo without a password: the sudo path of the one-liner.
  # Debian's base-passwd already has an `operator` group (GID 37), so the user's group is `users`.
  chroot "$root" useradd --create-home --shell /bin/bash --gid users --comment 'e2e operator' operator
  echo 'operator ALL=(ALL:ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/oac-e2e-operator"
  chmod 0440 "$root/etc/sudoers.d/oac-e2e-operator"
  chroot "$root" visudo -c -q

  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
}
# ---- end of recipe ----------------------------------------------------------------------------

die() {
  echo "e2e-rootfs: $*" >&2
  exit 1
}

# recipe SUITE: what the cache name hashes, and what rootfs-<hash>.recipe keeps.
recipe() {
  # declare -f prints the function without comments: editing a comment does not rebuild.
  echo "$1 $VARIANT $(include "$1")"
  declare -f customize
}

rootfs_path() { echo "$CACHE/rootfs-$(recipe "$1" | sha256sum | cut -c1-16)"; }

known_suite() {
  local s
  for s in "${SUITES[@]}"; do [[ $s != "$1" ]] || return 0; done
  die "unknown suite '$1': one of ${SUITES[*]}"
}

# The Debian mirror: OAC_E2E_MIRROR, else the one this machine's apt uses for SUITE, else (a
# suite this machine does not install from) the URI of its own release's entry: one archive
# serves every suite.
mirror() {
  debian_mirror "$1" "${OAC_E2E_MIRROR:-}" ||
    debian_mirror "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)" "" ||
    die "no '$1' entry in /etc/apt/sources.list{,.d}: set OAC_E2E_MIRROR"
}

build() {
  local suite=$1 target tmp started
  known_suite "$suite"
  [[ $(id -u) -eq 0 ]] || die "run as root (debootstrap, chroot)"
  command -v debootstrap >/dev/null || die "debootstrap is missing: run 'bash scripts/setup.sh'"
  target=$(rootfs_path "$suite")
  if [[ -d $target ]]; then
    echo "$target"
    return
  fi
  mkdir -p "$CACHE"
  # One build at a time; a second caller waits, then finds the tree the first one built.
  exec 9>"$CACHE/.build.lock"
  flock 9
  if [[ -d $target ]]; then
    echo "$target"
    return
  fi
  # Under the lock, any half-built tree belongs to a build that died: remove it.
  rm -rf "$CACHE"/rootfs-*.tmp-*
  tmp=$target.tmp-$$
  started=$(date +%s)
  local log=$CACHE/build-$suite.log
  echo "e2e-rootfs: building $target (debootstrap $suite from $(mirror "$suite"), about 2 minutes)" >&2
  if ! debootstrap --variant="$VARIANT" --include="$(include "$suite")" "$suite" "$tmp" \
    "$(mirror "$suite")" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    rm -rf "$tmp"
    die "debootstrap failed; full log: $log"
  fi
  if ! customize "$tmp" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    rm -rf "$tmp"
    die "customizing the tree failed; full log: $log"
  fi
  recipe "$suite" >"$target.recipe"
  mv -T "$tmp" "$target" # atomic: a tree under the final name is always complete
  echo "e2e-rootfs: built in $(($(date +%s) - started)) s, $(du -sh "$target" | cut -f1)" >&2
  echo "$target"
}

# Field 22 of /proc/PID/stat (the start time): with the PID it names one process for good.
# Fails for a process that is gone or a zombie.
proc_start() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  # shellcheck disable=SC2086 # split the fields on purpose: $1 is now field 3 (state)
  set -- $stat
  [[ $1 != Z ]] || return 1 # a zombie is dead, just not yet reaped
  echo "${20}"
}

# True when FILE ("PID START", written by the harness) names a process that is still running.
recorded_alive() {
  local pid start
  read -r pid start <"$1" 2>/dev/null || return 1
  [[ $pid =~ ^[0-9]+$ && $pid -gt 1 && $(proc_start "$pid" || true) == "$start" ]]
}

# Removes one host's leftovers: its processes (by recorded PID and start time only), veth,
# nspawn propagate dir, cgroups and scratch dir.
remove_host() {
  local dir=$1 name f pid
  name=$(basename "$dir")
  for f in launcher nspawn leader; do
    if recorded_alive "$dir/$f.pid"; then
      read -r pid _ <"$dir/$f.pid"
      echo "e2e-rootfs: killing $name's $f (PID $pid)"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  for _ in $(seq 50); do
    recorded_alive "$dir/launcher.pid" || recorded_alive "$dir/nspawn.pid" ||
      recorded_alive "$dir/leader.pid" || break
    sleep 0.1
  done
  remove_runtime_state "$dir"
  rm -rf "$dir"
  echo "e2e-rootfs: removed $dir"
}

remove_runtime_state() {
  local dir=$1 name cg
  name=$(basename "$dir")
  ip link del "ve-$name" 2>/dev/null || true
  rm -rf "/run/systemd/nspawn/propagate/$name"
  # The cgroups test/e2e/harness/launch.sh made (and listed), with what the host's Docker made in them.
  while read -r cg; do
    [[ $cg == /sys/fs/cgroup/*/oac-e2e/"$name" && -d $cg ]] || continue
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done <"$dir/cgroups" 2>/dev/null || true
}

# clean: every host whose test process is gone, kept ones (OAC_E2E_KEEP=1) included, then
# builds of other recipes when no host runs at all. clean --stale (run by the harness before
# its first boot): the same for hosts not kept, and no builds.
clean() {
  [[ $(id -u) -eq 0 ]] || die "run as root"
  local mode=${1:-} dir name link busy=0 cg
  if [[ -d $SCRATCH ]]; then
    for dir in "$SCRATCH/$MACHINE_PREFIX"*; do
      [[ -d $dir && $(basename "$dir") =~ ^${MACHINE_PREFIX}[0-9]+$ ]] || continue
      if recorded_alive "$dir/owner.pid"; then
        busy=$((busy + 1))
        [[ $mode == --stale ]] || echo "e2e-rootfs: keeping $dir: its test process is running"
        continue
      fi
      if [[ $mode == --stale && -e $dir/keep ]]; then
        busy=$((busy + 1))
        continue
      fi
      # Just allocated by a test process that has yet to record itself (the e2e tier runs two
      # files at once; the harness writes owner.pid right after the mkdir): not a leftover.
      if [[ ! -e $dir/owner.pid && -n $(find "$dir" -maxdepth 0 -newermt '-60 seconds') ]]; then
        busy=$((busy + 1))
        continue
      fi
      remove_host "$dir"
    done
  fi
  # Runtime state whose scratch dir is gone (a veth normally dies with its container).
  while read -r link; do
    [[ -n $link && ! -d $SCRATCH/${link#ve-} ]] || continue
    if ip link del "$link" 2>/dev/null; then echo "e2e-rootfs: removed veth $link"; fi
  done < <(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
    grep -E "^ve-${MACHINE_PREFIX}[0-9]+$" || true)
  while read -r cg; do
    [[ -d $cg && ! -d $SCRATCH/$(basename "$cg") ]] || continue
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done < <(find /sys/fs/cgroup -mindepth 2 -maxdepth 6 -type d -path "*/oac-e2e/$MACHINE_PREFIX*" \
    -prune 2>/dev/null || true)
  [[ $mode == --stale ]] && return
  # Half-built trees and builds of other recipes, when no host could be using them.
  if ((busy == 0)) && [[ -d $CACHE ]]; then
    local current=() suite
    for suite in "${SUITES[@]}"; do current+=("$(rootfs_path "$suite")"); done
    exec 9>"$CACHE/.build.lock"
    if flock -n 9; then
      for dir in "$CACHE"/rootfs-*; do
        [[ -e $dir && " ${current[*]/%/ } ${current[*]/%/.recipe} " != *" $dir "* ]] || continue
        rm -rf "$dir"
        echo "e2e-rootfs: removed $dir"
      done
    fi
  fi
  echo "e2e-rootfs: clean"
}

case ${1:-build} in
  build) build "${2:-${SUITES[0]}}" ;;
  build-all) for suite in "${SUITES[@]}"; do build "$suite"; done ;;
  path) known_suite "${2:-${SUITES[0]}}" && rootfs_path "${2:-${SUITES[0]}}" ;;
  clean) clean "${2:-}" ;;
  *) die "usage: $0 build [SUITE]|build-all|path [SUITE]|clean [--stale]" ;;
esac
