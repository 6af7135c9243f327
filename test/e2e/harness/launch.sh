#!/bin/sh
# Started by host.ts as `unshare --mount --pid --fork --kill-child ... sh launch.sh NAME LOWER DIR
# NSPAWN-ARGS...`, so it runs as PID 1 of a fresh PID namespace with a private mount namespace:
#   1. moves itself into its own cgroup `oac-e2e/NAME` below its current one in every hierarchy
#      (listed in DIR/cgroups for removal): nspawn puts the host's systemd in a `payload` cgroup
#      under its own, so two hosts must not share one, and the host's Docker then makes its
#      containers' cgroup-v1 dirs inside it too;
#   2. mounts the overlay (LOWER read-only, DIR/upper, DIR/work) on DIR/root, visible only here;
#      with OAC_E2E_UPPER_SIZE (tmpfs size=, e.g. 400m) the upper and work dirs are on a tmpfs of
#      that size, mounted on DIR/upper, so that a test can fill the host's own disk
#      (test/e2e/faults-disk.test.ts) without ever filling this machine's;
#   3. execs systemd-nspawn, which stays this namespace's PID 1: when it dies, however, the
#      kernel kills every process of the host.
set -eu
name=$1 lower=$2 dir=$3
shift 3

: >"$dir/cgroups"
while IFS=: read -r _ controllers path; do
  case $controllers in
  '') # cgroup v2: /sys/fs/cgroup/unified on a hybrid machine, /sys/fs/cgroup on a v2-only one
    mnt=/sys/fs/cgroup/unified
    [ -f "$mnt/cgroup.procs" ] || mnt=/sys/fs/cgroup
    ;;
  name=systemd) mnt=/sys/fs/cgroup/systemd ;;
  name=*) continue ;;
  *) mnt=/sys/fs/cgroup/$controllers ;;
  esac
  [ -f "$mnt/cgroup.procs" ] || continue
  parent=$mnt${path%/}
  mkdir -p "$parent/oac-e2e/$name"
  case ,$controllers, in
  *,cpuset,*) # a new cpuset cgroup has no CPUs or memory nodes until given its parent's
    for f in cpuset.cpus cpuset.mems; do
      cat "$parent/$f" >"$parent/oac-e2e/$f"
      cat "$parent/$f" >"$parent/oac-e2e/$name/$f"
    done
    ;;
  esac
  echo "$parent/oac-e2e/$name" >>"$dir/cgroups"
  echo 0 >"$parent/oac-e2e/$name/cgroup.procs"
done </proc/self/cgroup

upper=$dir/upper work=$dir/work
if [ -n "${OAC_E2E_UPPER_SIZE:-}" ]; then
  mount -t tmpfs -o "size=$OAC_E2E_UPPER_SIZE,mode=0755" oac-e2e-upper "$dir/upper"
  mkdir -m 0755 "$dir/upper/upper" "$dir/upper/work"
  upper=$dir/upper/upper work=$dir/upper/work
fi
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work" "$dir/root"
exec systemd-nspawn "$@"
