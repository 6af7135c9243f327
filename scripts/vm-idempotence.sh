#!/usr/bin/env bash
# Proves in a real VM (its own kernel: cgroup v2, AppArmor enforcing, Docker with the systemd
# cgroup driver) that the pasted line installs a connected, ready node, that running it again
# changes nothing, and that uninstall gives the machine back as it was (docs/vm-idempotence.md).
#
# A Debian 12 VM boots under qemu from a debootstrap image, cached under a name that is the hash
# of its recipe, so it is rebuilt only when the recipe changes. The reference Core runs inside
# the VM on 127.0.0.1 and the VM has no network device at all: no traffic leaves it.
#
#   bash scripts/vm-idempotence.sh          # build what is missing, boot, run the scenario
#   bash scripts/vm-idempotence.sh image    # build the cached image only, print its directory
#   bash scripts/vm-idempotence.sh path     # print that directory, build nothing (a CI cache key)
#   bash scripts/vm-idempotence.sh clean    # remove images of older recipes, older releases
#   bash scripts/vm-idempotence.sh cloud-init  # the line run by cloud-init at first boot, from a
#                                              # NoCloud seed (an image of its own, with cloud-init)
#
# Environment: OAC_VM_CACHE (default /var/cache/oac-vm) holds images and releases;
# OAC_VM_SCRATCH (default /var/tmp) the per-run directory, removed on exit unless OAC_VM_KEEP=1;
# OAC_VM_TIMEOUT (default 1200) the limit in seconds of one boot; OAC_VM_MIRROR overrides the
# Debian mirror, which is otherwise the one this machine's apt already uses.
set -euo pipefail
# shellcheck source=scripts/debian-mirror.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
cd "$(dirname "$0")/.."

CACHE=${OAC_VM_CACHE:-/var/cache/oac-vm}
SCRATCH=${OAC_VM_SCRATCH:-/var/tmp}
TIMEOUT=${OAC_VM_TIMEOUT:-1200}
# Under TCG only (this kind of machine's /dev/kvm boots no Debian kernel): the recipe's settings.
QEMU_MACHINE=(-accel 'tcg,thread=multi' -cpu max -smp 2 -m 2048)
HOST_PACKAGES=(qemu-system-x86 qemu-utils debootstrap e2fsprogs)

# ---- the recipe: everything below up to "end of recipe" is hashed into the image's name -------
SUITE=bookworm
VARIANT=minbase
IMAGE_SIZE=6G
# A kernel and initramfs to boot; apparmor, or `docker run` fails on the docker-default profile;
# curl, sudo, ca-certificates: what the pasted line runs; jq: the scenario reads Core's JSON.
INCLUDE=systemd,systemd-sysv,dbus,udev,kmod,linux-image-amd64,initramfs-tools,curl,ca-certificates,sudo,iproute2,procps,docker.io,iptables,apparmor,jq

customize() {
  local root=$1
  echo oac-vm >"$root/etc/hostname"
  echo '127.0.1.1 oac-vm' >>"$root/etc/hosts" # sudo resolves the host name
  : >"$root/etc/machine-id"                    # the warm-up boot makes and keeps one
  # The runner: mounts the host's two 9p shares on /run (tmpfs: nothing of the run lands on the
  # VM's disk), runs the scenario, leaves its status in the writable share, powers off.
  cat >"$root/usr/local/sbin/oac-vm-run" <<'EOF'
#!/bin/sh
base=/run/oac-vm
opts=trans=virtio,version=9p2000.L,msize=524288
modprobe -a 9pnet_virtio 9p
mkdir -p "$base/in" "$base/out"
if mount -t 9p -o "$opts,ro" oacin "$base/in" && mount -t 9p -o "$opts" oacout "$base/out"; then
  date +%s.%N >"$base/out/started"
  sh "$base/in/scenario.sh" "$base/in" "$base/out" >"$base/out/scenario.log" 2>&1
  echo $? >"$base/out/status"
  umount "$base/out"
fi
systemctl --no-block poweroff
EOF
  chmod 0755 "$root/usr/local/sbin/oac-vm-run"
  # Type=exec, and not ordered after multi-user.target: the boot completes while it runs, so the
  # scenario can wait for a settled system (a oneshot would hold the boot until it ended).
  cat >"$root/etc/systemd/system/oac-vm-run.service" <<'EOF'
[Unit]
Description=Run the host's scenario from its 9p share, then power off (scripts/vm-idempotence.sh)
After=docker.service

[Service]
Type=exec
ExecStart=/usr/local/sbin/oac-vm-run
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
  systemctl --root="$root" enable oac-vm-run.service docker.service
  # No unattended apt runs (they would try the network) in a VM that lives a few minutes.
  systemctl --root="$root" mask apt-daily.timer apt-daily-upgrade.timer
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
}

# The cloud-init image only (bash scripts/vm-idempotence.sh cloud-init): the same recipe plus
# cloud-init, which looks for a NoCloud seed only (no other source to probe, no network to wait
# for), and sets the C.UTF-8 locale (minbase has no locales to generate; the default en_US fails
# the locale module). Installed by apt in the finished tree: debootstrap --include=cloud-init
# fails to configure python3-cryptography.
customize_cloud_init() {
  local root=$1
  chroot "$root" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends cloud-init
  printf '%s\n' 'datasource_list: [ NoCloud ]' 'locale: C.UTF-8' >"$root/etc/cloud/cloud.cfg.d/90-oac-vm.cfg"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
}
# ---- end of recipe ----------------------------------------------------------------------------

MODE=idempotence # or cloud-init: which scenario, and which image

die() {
  echo "vm-idempotence: FAILED: $*" >&2
  exit 1
}
say() { echo "vm-idempotence: $*" >&2; }

recipe() {
  if [[ $MODE == cloud-init ]]; then
    echo "$SUITE $VARIANT $IMAGE_SIZE $INCLUDE"
    declare -f customize customize_cloud_init
  else
    echo "$SUITE $VARIANT $IMAGE_SIZE $INCLUDE"
    declare -f customize
  fi
}
# declare -f prints the function without comments: editing a comment does not rebuild.
image_dir() { echo "$CACHE/image-$(recipe | sha256sum | cut -c1-16)"; }

ensure_host_packages() {
  local p missing=()
  for p in "${HOST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  local log
  log=$(mktemp "$SCRATCH/oac-vm-apt.XXXXXX") # not a fixed name in a folder others can write
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "apt-get could not install ${missing[*]}"
  fi
  rm -f "$log"
}

# The Debian mirror: OAC_VM_MIRROR, else the one this machine's apt uses for $SUITE.
mirror() {
  debian_mirror "$SUITE" "${OAC_VM_MIRROR:-}" ||
    die "no '$SUITE' entry in /etc/apt/sources.list{,.d}: set OAC_VM_MIRROR"
}

# The image: a raw ext4 file system made straight from the debootstrap tree (no loop mount),
# with the kernel and initramfs copied out of it, then booted once so that first-boot work
# (machine ID, Docker's own setup) is done once in the cache and not in every run.
build_image() {
  local target tmp started
  target=$(image_dir)
  [[ -f $target/base.img ]] && return
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock" # one build at a time; a second caller finds the first one's image
  flock 9
  [[ -f $target/base.img ]] && return
  rm -rf "$CACHE"/image-*.tmp-* # under the lock: builds that died
  tmp=$target.tmp-$$
  mkdir -p "$tmp"
  started=$(date +%s)
  say "building $target (debootstrap $SUITE from $(mirror), a few minutes)"
  if ! debootstrap --variant="$VARIANT" --include="$INCLUDE" "$SUITE" "$tmp/root" "$(mirror)" \
    >"$tmp/build.log" 2>&1 || ! customize "$tmp/root" >>"$tmp/build.log" 2>&1 ||
    { [[ $MODE == cloud-init ]] && ! customize_cloud_init "$tmp/root" >>"$tmp/build.log" 2>&1; }; then
    tail -n 20 "$tmp/build.log" >&2
    cp "$tmp/build.log" "$CACHE/build.log"
    rm -rf "$tmp"
    die "building the image failed; full log: $CACHE/build.log"
  fi
  cp "$tmp"/root/boot/vmlinuz-* "$tmp/vmlinuz"
  cp "$tmp"/root/boot/initrd.img-* "$tmp/initrd.img"
  truncate -s "$IMAGE_SIZE" "$tmp/base.img"
  mkfs.ext4 -F -q -L oac-vm -d "$tmp/root" "$tmp/base.img" >>"$tmp/build.log" 2>&1
  rm -rf "$tmp/root"
  say "image made in $(($(date +%s) - started)) s; warming it up (first boot)"
  warm_up "$tmp"
  recipe >"$tmp/recipe"
  mv -T "$tmp" "$target" # atomic: an image under the final name is complete and warm
  say "image built in $(($(date +%s) - started)) s: $target"
}

# The first boot, on the base image itself: a scenario that only waits for the system to settle.
# cloud-init stays off in it: the seeded boot of a run is to be the machine's first for it.
warm_up() {
  local dir=$1 run
  run=$(mktemp -d "$SCRATCH/oac-vm-warm.XXXXXX")
  mkdir -p "$run/in" "$run/out"
  printf '%s\n' 'systemctl is-system-running --wait; docker info >/dev/null' >"$run/in/scenario.sh"
  if ! APPEND=cloud-init=disabled boot "$dir/base.img" raw "$dir" "$run"; then
    tail -n 30 "$run/serial.log" >&2
    rm -rf "$run"
    die "the warm-up boot of the new image did not end by itself ($BOOT_WHY; serial console above)"
  fi
  rm -rf "$run"
}

# boot DISK FORMAT IMAGE_DIR RUN_DIR: boots DISK with RUN_DIR/in (read-only) and RUN_DIR/out
# (writable) shared over 9p, until the runner powers the VM off. Sets BOOT_S (qemu start to the
# scenario's start), SCENARIO_S (its start to its status), VM_S (the whole VM's life). No network
# device: -nodefaults and -nic none.
boot() {
  local disk=$1 format=$2 dir=$3 run=$4 t0 rc=0
  t0=$(date +%s%N)
  BOOT_S='' SCENARIO_S=''
  timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 "${QEMU_MACHINE[@]}" \
    -nodefaults -no-user-config -nic none -display none -no-reboot \
    -serial "file:$run/serial.log" \
    -kernel "$dir/vmlinuz" -initrd "$dir/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 panic=-1 ${APPEND:-}" \
    -drive "file=$disk,format=$format,if=virtio,cache=unsafe" \
    -virtfs "local,path=$run/in,mount_tag=oacin,security_model=none,readonly=on" \
    -virtfs "local,path=$run/out,mount_tag=oacout,security_model=none" \
    "${SEED_DRIVE[@]}" &
  QEMU_PID=$!
  while kill -0 "$QEMU_PID" 2>/dev/null; do
    if [[ -z $BOOT_S && -e $run/out/started ]]; then BOOT_S=$(seconds_since "$t0"); fi
    if [[ -z $SCENARIO_S && -e $run/out/status ]]; then
      SCENARIO_S=$(awk -v a="$(seconds_since "$t0")" -v b="$BOOT_S" 'BEGIN { printf "%.1f", a - b }')
    fi
    sleep 0.2
  done
  wait "$QEMU_PID" || rc=$?
  QEMU_PID=
  VM_S=$(seconds_since "$t0")
  BOOT_WHY="qemu exited $rc"
  ((rc != 124 && rc != 137)) || BOOT_WHY="killed after OAC_VM_TIMEOUT=$TIMEOUT s"
  ((rc == 0)) && [[ -e $run/out/status ]]
}

seconds_since() { # NANOSECONDS: seconds since then, one decimal
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

# dist/oac-node (the executable the host runs) and a release of it, cached by its checksum.
ensure_release() {
  if [[ ! -x dist/oac-node ]]; then
    say "building dist/oac-node (npm run build)"
    npm run build --silent >/dev/null || die "npm run build failed (did 'bash scripts/setup.sh' run?)"
  fi
  local sum
  sum=$(sha256sum dist/oac-node | cut -c1-16)
  RELEASE=$CACHE/release-$sum
  [[ -f $RELEASE/manifest.json ]] && return
  say "building the release of dist/ into $RELEASE"
  local tmp=$RELEASE.tmp-$$ # this run's own: two runs at once do not share it
  rm -rf "$tmp"
  node --import tsx fixtures/release/main.ts --out "$tmp" >/dev/null ||
    die "building the release of dist/ failed"
  mv -T "$tmp" "$RELEASE" 2>/dev/null || rm -rf "$tmp" # another run's is there already: keep it
}

# The read-only share: this machine's node (Debian 12, the VM's glibc), the reference Core
# bundled into one file, the release (hard links: the share is read-only to the VM), the
# scenario and the e2e tier's snapshot script.
make_share() {
  local in=$1
  mkdir -p "$in"
  cp "$(readlink -f "$(command -v node)")" "$in/node"
  # One bundled file: under TCG every process start and file read is slow, and tsx would
  # transpile a hundred files over 9p at each start; the bundle loads in seconds.
  npx esbuild fixtures/core/main.ts --bundle --platform=node --format=esm --target=node20 \
    --outfile="$in/core.mjs" --log-level=warning \
    --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
  cp -al "$RELEASE" "$in/release" 2>/dev/null || cp -a "$RELEASE" "$in/release"
  cp scripts/vm/scenario.sh "$in/scenario.sh"
  echo "$MODE" >"$in/mode"
  node --import tsx scripts/vm/snapshot.ts script >"$in/snapshot.sh"
}

# The one clear line, then what explains it: the scenario's own log, the failed phase's log, and
# the serial console.
report_failure() {
  local run=$1 why=$2 log
  if [[ -f $run/out/scenario.log ]]; then
    echo "--- scenario.log (tail)" >&2
    tail -n 25 "$run/out/scenario.log" >&2
    why=$(grep -m 1 '^FAIL: ' "$run/out/scenario.log" | cut -c7-) || why=$2
    log=$(cat "$run/out/phase" 2>/dev/null) || true # the log of the last phase begun
    if [[ -n $log && -f $run/out/$log ]]; then
      echo "--- $log (tail)" >&2
      tail -n 25 "$run/out/$log" >&2
    fi
  fi
  echo "--- serial console (tail)" >&2
  tail -n 25 "$run/serial.log" >&2 || true
  die "$why"
}

print_times() {
  local run=$1 total=$2 name s
  printf '%-22s %8s\n' phase seconds boot "$BOOT_S"
  while read -r name s; do printf '  %-20s %8s\n' "$name" "$s"; done <"$run/out/times"
  printf '%-22s %8s\n' "scenario (indented)" "$SCENARIO_S" "VM (start to off)" "$VM_S" \
    "total (this script)" "$total"
}

# The NoCloud seed: a FAT file system labelled CIDATA with the user-data and meta-data, the way
# a cloud or a provisioning system hands them to cloud-init; a second, read-only disk.
make_seed() {
  local run=$1
  printf 'instance-id: oac-vm-%s\nlocal-hostname: oac-vm\n' "$(basename "$run")" >"$run/meta-data"
  mkfs.vfat -n CIDATA -C "$run/seed.img" 1024 >/dev/null
  mcopy -i "$run/seed.img" scripts/vm/user-data.yaml ::user-data
  mcopy -i "$run/seed.img" "$run/meta-data" ::meta-data
  SEED_DRIVE=(-drive "file=$run/seed.img,format=raw,if=virtio,readonly=on")
}

RUN=
QEMU_PID=
SEED_DRIVE=()
# shellcheck disable=SC2317 # run by the EXIT trap, which shellcheck 0.9 does not follow here
cleanup() {
  if [[ -n $QEMU_PID ]]; then kill "$QEMU_PID" 2>/dev/null || true; fi
  if [[ -n $RUN && -d $RUN ]]; then
    if [[ ${OAC_VM_KEEP:-} == 1 ]]; then say "kept $RUN"; else rm -rf "$RUN"; fi
  fi
}

run() {
  local t0 dir
  t0=$(date +%s%N)
  ensure_host_packages
  ensure_release
  build_image
  dir=$(image_dir)
  RUN=$(mktemp -d "$SCRATCH/oac-vm.XXXXXX")
  make_share "$RUN/in"
  mkdir -p "$RUN/out"
  # Copy-on-write over the cached base: the run never writes the cache.
  qemu-img create -q -f qcow2 -F raw -b "$dir/base.img" "$RUN/run.qcow2"
  [[ $MODE != cloud-init ]] || make_seed "$RUN"
  say "booting the VM (TCG, no network device)"
  boot "$RUN/run.qcow2" qcow2 "$dir" "$RUN" || report_failure "$RUN" "the VM did not finish the scenario ($BOOT_WHY)"
  [[ $(cat "$RUN/out/status") == 0 ]] || report_failure "$RUN" "the scenario failed"
  if [[ $MODE == cloud-init ]]; then
    sed -n '1,3p' "$RUN/out/scenario.log" >&2
    print_times "$RUN" "$(seconds_since "$t0")"
    say "passed: cloud-init's runcmd ran the line at first boot; the node is connected and ready; the token is in no file; no AppArmor denial"
    return
  fi
  local differences
  if ! differences=$(node --import tsx scripts/vm/snapshot.ts diff "$RUN/out/before.snap" "$RUN/out/after.snap"); then
    printf '%s\n' "$differences" >&2
    die "the VM after uninstall differs from before install (beyond the kept Runtime image)"
  fi
  sed -n '1,3p' "$RUN/out/scenario.log" >&2
  say "before/after differences (the kept Runtime image only): ${differences:-none}"
  print_times "$RUN" "$(seconds_since "$t0")"
  say "passed: install, rerun unchanged, dry run 0, status 0, uninstall, state as before, no AppArmor denial"
}

# Removes what the current recipes and dist/ do not use: older images (and half-built ones, when
# no build runs) and releases of older executables.
clean() {
  local current cloud_init d release=none
  current=$(image_dir)
  cloud_init=$(MODE=cloud-init image_dir)
  [[ ! -f dist/oac-node ]] || release=$CACHE/release-$(sha256sum dist/oac-node | cut -c1-16)
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock"
  flock -n 9 || die "an image build is running"
  for d in "$CACHE"/image-* "$CACHE"/release-*; do
    [[ -e $d && $d != "$current" && $d != "$cloud_init" && $d != "$release" ]] || continue
    rm -rf "$d"
    say "removed $d"
  done
}

main() {
  [[ $(id -u) -eq 0 || ${1:-} == path ]] || die "run as root (apt-get, debootstrap, the image cache)"
  case ${1:-run} in
    run) run ;;
    cloud-init)
      MODE=cloud-init
      HOST_PACKAGES+=(dosfstools mtools)
      run
      ;;
    image)
      ensure_host_packages
      build_image
      image_dir
      ;;
    path) image_dir ;;
    clean) clean ;;
    *) die "usage: $0 [run|image|path|clean|cloud-init]" ;;
  esac
}

# One line, read whole before it runs: editing this file during a run cannot change the run.
trap cleanup EXIT; main "$@"; exit
