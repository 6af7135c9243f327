// The soak's wider snapshot (issue #26 item 3). `host.snapshot()` compares the users and groups,
// our own directories, Docker's networks and images and the enabled and failed units; a slow leak
// over 25 cycles could hide anywhere else, so this one script, run as root inside the host,
// lists the whole of /etc, the files under /var/lib, /run, every unit systemd knows, Docker's
// containers and volumes, the network links, addresses and packet filter rules, the mounts and
// the processes; and `upperListing` lists, from this machine, every file the host wrote to its
// disk (the overlay's upper directory). Each section is a sorted list of lines; two snapshots
// differ by the lines one has and the other has not.
//
// What an idle host changes by itself was measured first: two snapshots a minute apart on an
// idle host were identical, line for line, so no entry of /run, /etc or /var/lib is left out for
// being volatile. What is left out, each with its reason, is below at `tree`, `sums`, the
// `/var/lib/docker` pruning, `REWRITTEN_FILES` and `upperListing`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const MARK = '@@oac-soak-snapshot';

/** Section name -> its lines, sorted. */
export type WideSnapshot = Record<string, string[]>;

/**
 * Whole trees, each entry with its type, mode, owner, link target, and for a regular file its
 * sha256 and modification time. /var/lib/docker is left out: it is Docker's own store (overlay2
 * layers, bolt databases, container directories), an implementation compared instead through
 * what Docker says (images and networks in `host.snapshot()`, containers and volumes here) and
 * through its size on disk (the growth rule). /root and /usr/local hold what the installer keeps
 * (the downloaded installers, UNI-06) and the program it removes.
 */
const TREES = ['/etc', '/var/lib', '/root', '/home', '/usr/local'];
/** Names, types, modes and owners only: what a PID file or a socket holds is not state an
 *  uninstall restores, and a process's temporary file must not outlive it. */
const NAME_TREES = ['/run', '/tmp', '/var/tmp'];

/**
 * Files whose modification time moves every cycle while their contents, compared by sha256, stay
 * the same: the user and group databases and their `-` backups, which `useradd` and `userdel`
 * rewrite (they are also compared line by line in `host.snapshot()`); and the line's lock, which
 * the line opens with a block's `9>"$d/lock"` (installer/one-liner.ts) to flock it, truncating the
 * empty file each run.
 */
const REWRITTEN_FILES = [
  ...['passwd', 'group', 'shadow', 'gshadow'].flatMap((f) => [`/etc/${f}`, `/etc/${f}-`]),
  '/root/.oac/node-bootstrap/lock',
];

/** The script, run with `host.shOk` as root inside the host; its output goes to parseWide. */
export function wideSnapshotScript(): string {
  return `
set -u
mark() { printf '\\n${MARK} %s\\n' "$1"; }
for d in ${TREES.join(' ')}; do
  [ -d "$d" ] || continue
  mark "tree $d"
  find "$d" -mindepth 1 -path /var/lib/docker -prune -o -printf '%p\\t%y\\t%m\\t%u:%g\\t%T@\\t%l\\n' || echo '!find failed'
  mark "sums $d"
  find "$d" -mindepth 1 -path /var/lib/docker -prune -o -type f -print0 | xargs -0 -r sha256sum -- || echo '!sha256sum failed'
done
for d in ${NAME_TREES.join(' ')}; do
  mark "names $d"
  find "$d" -mindepth 1 -printf '%p\\t%y\\t%m\\t%u:%g\\t%l\\n' || echo '!find failed'
done
# Each command's output is taken whole before it is filtered, so that its failure shows: in a
# pipeline only the last command's status would (dash has no pipefail).
take() { out=$("$@") || { echo "!$1 failed"; return; }; printf '%s\\n' "$out"; }
mark units
take systemctl list-units --all --plain --no-legend --no-pager | awk '{print $1, $2, $3, $4}'
mark unit-files
take systemctl list-unit-files --plain --no-legend --no-pager | awk '{print $1, $2}'
mark containers
take docker ps --all --no-trunc --format '{{.Names}} {{.Image}} {{.State}}'
mark volumes
take docker volume ls --format '{{.Name}} {{.Driver}}'
mark links
take ip -o link show | sed -E 's/^[0-9]+: ([^:@]+)(@[^:]+)?: .* link\\/([a-z]+).*/\\1 \\3/'
mark addresses
take ip -o addr show | awk '{print $2, $3, $4}'
mark iptables
# Without the packet counters ([packets:bytes]) and the dated comments iptables-save writes.
{ take iptables-save; take ip6tables-save; } | sed -E 's/ ?\\[[0-9]+:[0-9]+\\]//; /^#/d'
mark mounts
take findmnt -rn -o TARGET,FSTYPE
mark processes
# Every process but this script's own: \`timeout\`, which runs it, leads a process group of its own.
group=$(ps -o pgid= -p $$ | tr -d ' ')
take ps -eo pgid=,user=,comm= | awk -v group="$group" '$1 != group {print $2, $3}'
mark end
`;
}

/** The script's output, each tree's entries joined with their sums. */
export function parseWide(output: string): WideSnapshot {
  const raw: Record<string, string[]> = {};
  let ended = false;
  for (const section of output.split(`\n${MARK} `).slice(1)) {
    const newline = section.indexOf('\n');
    const name = newline < 0 ? section : section.slice(0, newline);
    const lines = (newline < 0 ? '' : section.slice(newline + 1))
      .split('\n')
      .filter((line) => line !== '');
    const failed = lines.find((line) => line.startsWith('!'));
    if (failed !== undefined) throw new Error(`soak snapshot, ${name}: ${failed.slice(1)}`);
    if (name === 'end') ended = true;
    else raw[name] = lines;
  }
  if (!ended) throw new Error(`soak snapshot: output cut short:\n${output.slice(-2000)}`);

  const snapshot: WideSnapshot = {};
  for (const [name, lines] of Object.entries(raw)) {
    if (name.startsWith('sums ')) continue;
    if (!name.startsWith('tree ')) {
      snapshot[name] = [...lines].sort();
      continue;
    }
    const sums = new Map<string, string>();
    for (const line of raw[`sums ${name.slice(5)}`] ?? []) {
      const match = /^([0-9a-f]{64}) {2}(.*)$/.exec(line);
      if (match === null) throw new Error(`soak snapshot: bad sum '${line}'`);
      sums.set(match[2] as string, match[1] as string);
    }
    snapshot[name] = lines
      .map((line) => {
        const [path = '', type, mode, owner, mtime, target] = line.split('\t');
        // A directory's mtime moves whenever an entry is added to it and removed again (a unit
        // file, a user's mail spool): its entries are what is compared.
        const stable = type === 'f' && !REWRITTEN_FILES.includes(path);
        const fields = [path, type, mode, owner, stable ? mtime : '-'];
        if (type === 'f') fields.push(sums.get(path) ?? 'no-sum');
        if (type === 'l') fields.push(`-> ${target ?? ''}`);
        return fields.join(' ');
      })
      .sort();
  }
  return snapshot;
}

/**
 * Every path the host wrote to its disk since it booted, with its type, mode and numeric owner:
 * the overlay's upper directory on this machine, so a file left anywhere outside the tmpfs mounts
 * shows (where a file's contents matter, /etc, /var/lib, /root, /usr/local, they are hashed above).
 * Left out: /var/log/journal, where journald appends the log of every cycle and rotates it by its
 * own size limits (SystemMaxUse): the log is what the host is meant to keep.
 */
export function upperListing(hostDir: string): string[] {
  const out = execFileSync(
    'find',
    [
      join(hostDir, 'upper'),
      '-mindepth',
      '1',
      '-path',
      join(hostDir, 'upper/var/log/journal'),
      '-prune',
      '-o',
      '-printf',
      '%P\\t%y\\t%m\\t%U:%G\\n',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return out
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** What changed from `before` to `after`, one line per difference: `SECTION -LINE`,
 *  `SECTION +LINE`; empty when they are equal. */
export function diffWide(before: WideSnapshot, after: WideSnapshot): string[] {
  const out: string[] = [];
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const a = before[name];
    const b = after[name];
    if (a === undefined || b === undefined) {
      out.push(`${name}: ${a === undefined ? 'added' : 'removed'}`);
      continue;
    }
    const count = new Map<string, number>();
    for (const line of a) count.set(line, (count.get(line) ?? 0) + 1);
    for (const line of b) count.set(line, (count.get(line) ?? 0) - 1);
    for (const [line, n] of count) {
      for (let i = 0; i < Math.abs(n); i += 1) out.push(`${name} ${n > 0 ? '-' : '+'}${line}`);
    }
  }
  return out;
}
