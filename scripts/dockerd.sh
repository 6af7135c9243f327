#!/usr/bin/env bash
# Starts, stops and reports a real dockerd for host tests on the bare machine
# (docs/e2e-hosts.md: apt's policy does not
# start services, so nothing else will). It keeps its own data and exec roots so it never touches
# a system Docker's state, and it stops only the PID it wrote: never a process found by name.
#
#   bash scripts/dockerd.sh start    # no-op when `docker info` already answers
#   bash scripts/dockerd.sh stop     # stops only the dockerd this script started
#   bash scripts/dockerd.sh status   # exit 0 when `docker info` answers
set -euo pipefail

DATA_ROOT=/var/lib/oac-test-docker
EXEC_ROOT=/run/oac-test-docker
PIDFILE=/run/oac-test-dockerd.pid
LOG=/tmp/oac-test-dockerd.log
WAIT_SECONDS=30

die() {
  echo "dockerd.sh: $*" >&2
  exit 1
}

# True when some daemon answers on the client's default socket. `timeout` keeps a wedged daemon
# from hanging the caller. The client (/usr/local/bin/docker, 28.x) negotiates the API version
# down to what Debian's 20.10 daemon speaks, so no DOCKER_API_VERSION is needed.
answers() {
  timeout 10 docker info --format '{{.ServerVersion}}' >/dev/null 2>&1
}

# The PID in our pidfile, printed only when that process is alive and really is a dockerd (a
# stale pidfile may name a PID the kernel has since given to something else).
our_pid() {
  [[ -r $PIDFILE ]] || return 1
  local pid
  pid=$(tr -dc '0-9' <"$PIDFILE")
  [[ -n $pid ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] || return 1
  echo "$pid"
}

start() {
  if answers; then
    echo "dockerd.sh: Docker already answers ($(docker info --format '{{.ServerVersion}}' 2>/dev/null))"
    return 0
  fi
  command -v dockerd >/dev/null 2>&1 ||
    die "dockerd is not installed: run 'apt-get install docker.io iptables'"
  command -v docker >/dev/null 2>&1 ||
    die "the docker client is not installed: run 'apt-get install docker.io'"
  if pid=$(our_pid); then
    # Ours is alive but not answering yet (e.g. a second start right after the first): wait.
    echo "dockerd.sh: dockerd $pid is starting; waiting"
  else
    mkdir -p "$DATA_ROOT" "$EXEC_ROOT"
    # setsid: the daemon gets its own session, so the caller's terminal or test runner ending
    # does not take it down, and it holds none of the caller's file descriptors.
    setsid dockerd \
      --data-root "$DATA_ROOT" \
      --exec-root "$EXEC_ROOT" \
      --pidfile "$PIDFILE" \
      </dev/null >>"$LOG" 2>&1 &
  fi
  local i
  for ((i = 0; i < WAIT_SECONDS * 2; i++)); do
    if answers; then
      echo "dockerd.sh: dockerd $(docker info --format '{{.ServerVersion}}' 2>/dev/null) is running (log: $LOG)"
      return 0
    fi
    sleep 0.5
  done
  tail -n 20 "$LOG" >&2 || true
  die "dockerd did not answer within ${WAIT_SECONDS}s; see $LOG"
}

stop() {
  local pid
  if ! pid=$(our_pid); then
    echo "dockerd.sh: no dockerd started by this script is running"
    return 0
  fi
  kill -TERM "$pid"
  # dockerd stops its containers and its managed containerd before it exits; give it time.
  local i
  for ((i = 0; i < 40; i++)); do
    [[ -d /proc/$pid ]] || {
      echo "dockerd.sh: stopped dockerd $pid"
      return 0
    }
    sleep 0.5
  done
  die "dockerd $pid did not exit within 20s after SIGTERM; see $LOG"
}

status() {
  if answers; then
    local pid
    if pid=$(our_pid); then
      echo "dockerd.sh: running (pid $pid, started by this script)"
    else
      echo "dockerd.sh: Docker answers (not started by this script)"
    fi
    return 0
  fi
  echo "dockerd.sh: Docker is not running"
  return 3
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: bash scripts/dockerd.sh start|stop|status" ;;
esac
