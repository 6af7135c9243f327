// The node service's sandbox (SEC-08): what `systemd-analyze security` scores, cut down to what
// the node uses. It runs as oac-node with no capabilities; it writes only its home (and a shared
// checkpoint store); it talks to Core over TCP (HTTPS and a WebSocket, maybe through a proxy)
// and to Docker over /var/run/docker.sock (AF_UNIX, through the docker group), or opens
// /dev/kvm (through the kvm group); during a rollout it downloads, verifies and unpacks files
// (GNU tar, for microsandbox's store). Pure: part of the unit's text.
//
// Left out on purpose, each scored by systemd-analyze (what remains: 1.1 Docker, 1.3
// microsandbox, measured in the e2e host):
// - PrivateNetwork=, IPAddressDeny=: the node must reach Core, whose address (a name, a proxy)
//   is not known as an IP list, and Docker's socket lives in the host's namespace.
// - RestrictAddressFamilies= cannot go further: AF_UNIX (Docker's socket, the journal) and
//   AF_INET/AF_INET6 (Core) are the node's work; AF_NETLINK, AF_PACKET … are refused.
// - MemoryDenyWriteExecute=: V8's JIT maps memory writable and executable; Node dies with it.
// - RootDirectory=/RootImage=: the node runs the host's tar and reads its CA certificates and
//   resolver configuration, read-only (ProtectSystem=strict).
// - microsandbox's DeviceAllow= names /dev/kvm: the provider itself.
// If the node ever runs microVMs itself (the microsandbox helper), it will need more than this
// (namespaces, /dev/net/tun …): this sandbox is for what the node does today.

export function sandboxLines(provider: 'docker' | 'microsandbox'): string[] {
  return [
    // No capability for the node or its children, whatever they execute (setuid files
    // included: NoNewPrivileges).
    'NoNewPrivileges=yes',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    // Devices: the pseudo devices only; microsandbox also opens /dev/kvm (PrivateDevices=
    // would hide it), so it gets the device cgroup instead: only /dev/kvm and the pseudo
    // devices systemd always allows under DevicePolicy=closed (/dev/null, zero, full, random,
    // urandom, tty, ptmx).
    ...(provider === 'docker'
      ? ['PrivateDevices=yes']
      : ['DevicePolicy=closed', 'DeviceAllow=/dev/kvm rw']),
    // A user namespace of its own, where only oac-node (and root) are mapped: the docker or kvm
    // group shows as nogroup inside, but the kernel checks the real group on open, so the
    // socket and /dev/kvm stay usable (measured in the e2e host: the node stays ready).
    'PrivateUsers=yes',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'PrivateMounts=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    // Only its own processes in /proc, and no system files there: memory and CPUs are read
    // through sysinfo() and sched_getaffinity(), which need neither.
    'ProtectProc=invisible',
    'ProcSubset=pid',
    'RestrictNamespaces=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'LimitCORE=0',
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'SystemCallFilter=~@privileged @resources',
    // A refused call fails with EPERM instead of killing the node: libuv and V8 probe optional
    // calls (io_uring, mbind …) and fall back.
    'SystemCallErrorNumber=EPERM',
  ];
}
