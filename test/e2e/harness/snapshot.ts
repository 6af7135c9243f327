// The host state issue #5 compares before install and after uninstall: the user and group
// databases, the unit, journal, state and program directories, Docker's networks and images, and
// the enabled units. Taken inside the host by one shell script; compared with diffSnapshots.

export interface TreeEntry {
  type: 'file' | 'dir' | 'link' | 'other';
  /** Octal permission bits, e.g. '644'. */
  mode: string;
  /** 'user:group' by name. */
  owner: string;
  /** Regular files and links: modification time, seconds with nanoseconds. Not for directories,
   *  whose mtime changes whenever an entry in them is added and removed again. */
  mtime?: string;
  sha256?: string;
  target?: string;
}

export interface HostSnapshot {
  /** Whole contents by path; null when the file is absent. */
  files: Record<string, string | null>;
  /** Entries by path relative to the directory; null when the directory is absent. */
  trees: Record<string, Record<string, TreeEntry> | null>;
  /** `NAME DRIVER SCOPE`, sorted; null when docker.service is not active (not asked, so that
   *  the snapshot never starts Docker through docker.socket). */
  dockerNetworks: string[] | null;
  /** `ID REPOSITORY:TAG`, full IDs, sorted; null when docker.service is not active. */
  dockerImages: string[] | null;
  /** Enabled unit names, sorted: the links in /etc/systemd/system/*.wants and *.requires. */
  enabledUnits: string[];
  /** Units `systemctl list-units --all --failed` lists, sorted (DECL-04: none of ours stays). */
  failedUnits: string[];
  /** What `systemctl is-system-running` says (DECL-04: as before the install). */
  systemState: string;
}

export const SNAPSHOT_FILES = ['/etc/passwd', '/etc/group', '/etc/shadow', '/etc/gshadow'];
/** The program's directory too: a crash or an uninstall that left the program behind must show. */
export const SNAPSHOT_TREES = [
  '/etc/systemd/system',
  '/etc/oac-node',
  '/var/lib/oac-node',
  '/usr/local/lib/oac-node',
  // `oac-node` on PATH (issue #25): gone after an uninstall, like the program.
  '/usr/local/sbin',
];

const MARK = '@@oac-e2e-snapshot';

/** The script `host.snapshot()` runs as root inside the host; its output goes to parseSnapshot. */
export function snapshotScript(): string {
  const q = (s: string): string => `'${s}'`;
  return `
set -u
mark() { printf '\\n${MARK} %s\\n' "$*"; }
# "<sha256>  <path under $1>" for each file under $1. A file's sum is taken from the cache while
# its stamp (size, mtime, ctime, inode, device) is the one it was hashed at: any write, rename
# over it or utimes() moves its ctime, which only the kernel sets (issue #28: an installed
# host's 88 MB program was hashed again by every snapshot, a second of each). Only a file whose
# ctime was a second old when hashed is kept, so a write in the same clock tick as a stamp
# cannot pass for no write (git's "racy" stamps). The cache lives in the host's /run, outside
# the snapshot's trees, and goes with the host.
cache=/run/oac-e2e-snapshot-sums
sums() {
  (cd "$1" && find . -mindepth 1 -type f -printf '%s:%T@:%C@:%i:%D %P\\n') |
    awk -v d="$1" -v cache="$cache" -v miss="$cache.miss" '
      BEGIN { while ((getline l < cache) > 0) { sp = index(l, " "); sum[substr(l, sp + 1)] = substr(l, 1, sp - 1) }
              printf "" > miss }
      { sp = index($0, " "); key = substr($0, 1, sp) d "/" substr($0, sp + 1)
        if (key in sum) print sum[key] "  " substr($0, sp + 1); else print $0 > miss }'
  [ -s "$cache.miss" ] || return 0
  cut -d' ' -f2- "$cache.miss" | (cd "$1" && tr '\\n' '\\0' | xargs -0 -r sha256sum --) >"$cache.new"
  cat "$cache.new"
  awk -v d="$1" -v now="$(date +%s)" '
    NR == FNR { sp = index($0, " "); stamp[substr($0, sp + 1)] = substr($0, 1, sp - 1); next }
    { p = substr($0, 67); if (!(p in stamp)) next
      split(stamp[p], f, ":"); if (f[3] + 1 < now) print substr($0, 1, 64) " " stamp[p] " " d "/" p }
  ' "$cache.miss" "$cache.new" >>"$cache"
}
for f in ${SNAPSHOT_FILES.map(q).join(' ')}; do
  if [ -f "$f" ]; then mark file "$f"; cat "$f"; else mark absent "$f"; fi
done
for d in ${SNAPSHOT_TREES.map(q).join(' ')}; do
  if [ ! -d "$d" ]; then mark absent "$d"; continue; fi
  mark tree "$d"
  find "$d" -mindepth 1 -printf '%P\\t%y\\t%m\\t%u:%g\\t%T@\\t%l\\n' | LC_ALL=C sort
  mark sums "$d"
  sums "$d"
done
# Docker is asked only when its service runs: a call through docker.socket would start it.
if systemctl is-active --quiet docker.service; then
  mark networks; docker network ls --format '{{.Name}} {{.Driver}} {{.Scope}}' || echo '!docker network ls failed'
  mark images; docker image ls --no-trunc --format '{{.ID}} {{.Repository}}:{{.Tag}}' || echo '!docker image ls failed'
fi
# Enabled units: the links \`systemctl enable\` makes in the .wants and .requires directories under
# /etc/systemd/system, read directly (\`systemctl list-unit-files --state=enabled\` reads every unit
# file on the host for the same answer: 0.9 s of each snapshot, issue #28).
mark units
units=$(find /etc/systemd/system -mindepth 2 -maxdepth 2 -type l \\( -path '*.wants/*' -o -path '*.requires/*' -o -path '*.upholds/*' \\) -printf '%f\\n') || echo '!find failed'
[ -z "$units" ] || printf '%s\\n' "$units" | LC_ALL=C sort -u
mark failed; systemctl list-units --all --failed --plain --no-legend --no-pager || echo '!systemctl failed'
mark state; systemctl is-system-running || true
mark end
`;
}

export function parseSnapshot(output: string): HostSnapshot {
  const snapshot: HostSnapshot = {
    files: {},
    trees: {},
    dockerNetworks: null,
    dockerImages: null,
    enabledUnits: [],
    failedUnits: [],
    systemState: '',
  };
  // Each section starts with "\n@@mark KIND [PATH]\n"; the leading newline is ours, not content.
  const sections = output.split(`\n${MARK} `).slice(1);
  let ended = false;
  for (const section of sections) {
    const newline = section.indexOf('\n');
    const header = newline < 0 ? section : section.slice(0, newline);
    const body = newline < 0 ? '' : section.slice(newline + 1);
    const [kind, ...rest] = header.split(' ');
    const path = rest.join(' ');
    const lines = body.split('\n').filter((line) => line !== '');
    const failed = lines.find((line) => line.startsWith('!'));
    if (failed !== undefined && ['networks', 'images', 'units', 'failed'].includes(kind ?? '')) {
      throw new Error(`snapshot: ${failed.slice(1)}`);
    }
    switch (kind) {
      case 'file':
        snapshot.files[path] = body;
        break;
      case 'absent':
        if (SNAPSHOT_FILES.includes(path)) snapshot.files[path] = null;
        else snapshot.trees[path] = null;
        break;
      case 'tree':
        snapshot.trees[path] = Object.fromEntries(lines.map(treeEntry));
        break;
      case 'sums':
        for (const line of lines) {
          const match = /^([0-9a-f]{64}) {2}(.*)$/.exec(line);
          if (match === null) throw new Error(`snapshot: bad sum '${line}'`);
          // The listing is the snapshot; a file created between it and the sums (a running node
          // writing its state) is not in it, so its sum is not either.
          const entry = snapshot.trees[path]?.[match[2] as string];
          if (entry !== undefined) entry.sha256 = match[1];
        }
        break;
      case 'networks':
        snapshot.dockerNetworks = lines.sort();
        break;
      case 'images':
        snapshot.dockerImages = lines.sort();
        break;
      case 'units':
        snapshot.enabledUnits = lines.map((line) => line.split(/\s+/)[0] as string).sort();
        break;
      case 'failed':
        snapshot.failedUnits = lines.map((line) => line.split(/\s+/)[0] as string).sort();
        break;
      case 'state':
        snapshot.systemState = lines[0] ?? '';
        break;
      case 'end':
        ended = true;
        break;
      default:
        throw new Error(`snapshot: unknown section '${header}'`);
    }
  }
  if (!ended) throw new Error(`snapshot: output is cut short:\n${output.slice(-2000)}`);
  return snapshot;
}

function treeEntry(line: string): [string, TreeEntry] {
  const [path, type, mode, owner, mtime, target] = line.split('\t');
  if (path === undefined || target === undefined) throw new Error(`snapshot: bad line '${line}'`);
  const kind = type === 'f' ? 'file' : type === 'd' ? 'dir' : type === 'l' ? 'link' : 'other';
  const entry: TreeEntry = { type: kind, mode: mode ?? '', owner: owner ?? '' };
  if (kind !== 'dir') entry.mtime = mtime;
  if (kind === 'link') entry.target = target;
  return [path, entry];
}

/**
 * What changed from `before` to `after`, one line per difference (empty when equal):
 *   `/etc/passwd +LINE`, `/etc/passwd -LINE`, `/etc/oac-node: added`,
 *   `/etc/oac-node/x.json: added file 600 root:root`, `/etc/systemd/system/u.service: removed`,
 *   `/etc/oac-node/x.json: sha256 A -> B`, `docker network +NAME DRIVER SCOPE`,
 *   `docker image -ID REF`, `enabled unit +oac-node-x.service`, `failed unit +x.service`,
 *   `system state running -> degraded`.
 */
/** The differences beyond the kept Runtime image (uninstall keeps it: UNI-04). */
export function beyondKeptImage(differences: string[]): string[] {
  return differences.filter((line) => !/docker ?images?/i.test(line));
}

export function diffSnapshots(before: HostSnapshot, after: HostSnapshot): string[] {
  const out: string[] = [];
  for (const path of union(Object.keys(before.files), Object.keys(after.files))) {
    const a = before.files[path];
    const b = after.files[path];
    if (a === b) continue;
    if (a === null || a === undefined) out.push(`${path}: added`);
    else if (b === null || b === undefined) out.push(`${path}: removed`);
    else {
      const lines = lineDiff(path, a.split('\n'), b.split('\n'));
      out.push(...(lines.length > 0 ? lines : [`${path}: lines reordered`]));
    }
  }
  for (const dir of union(Object.keys(before.trees), Object.keys(after.trees))) {
    const a = before.trees[dir] ?? null;
    const b = after.trees[dir] ?? null;
    if (a === null && b === null) continue;
    if (a === null) out.push(`${dir}: added`);
    if (b === null) out.push(`${dir}: removed`);
    for (const rel of union(Object.keys(a ?? {}), Object.keys(b ?? {}))) {
      const x = a?.[rel];
      const y = b?.[rel];
      const path = `${dir}/${rel}`;
      if (x === undefined && y !== undefined) out.push(`${path}: added ${describe(y)}`);
      else if (y === undefined && x !== undefined) {
        if (a !== null && b !== null) out.push(`${path}: removed`);
      } else if (x !== undefined && y !== undefined) {
        for (const key of ['type', 'mode', 'owner', 'target', 'sha256', 'mtime'] as const) {
          if (x[key] !== y[key]) out.push(`${path}: ${key} ${x[key] ?? '-'} -> ${y[key] ?? '-'}`);
        }
      }
    }
  }
  for (const [label, a, b] of [
    ['docker network', before.dockerNetworks, after.dockerNetworks],
    ['docker image', before.dockerImages, after.dockerImages],
  ] as const) {
    if (a === null && b === null) continue;
    if (a === null || b === null) {
      out.push(
        `${label}s: not listed ${a === null ? 'before' : 'after'} (docker.service inactive)`,
      );
    } else out.push(...lineDiff(label, a, b));
  }
  out.push(...lineDiff('enabled unit', before.enabledUnits, after.enabledUnits));
  out.push(...lineDiff('failed unit', before.failedUnits, after.failedUnits));
  if (before.systemState !== after.systemState)
    out.push(`system state ${before.systemState} -> ${after.systemState}`);
  return out;
}

function describe(entry: TreeEntry): string {
  const extra = entry.type === 'link' ? ` -> ${entry.target ?? ''}` : '';
  return `${entry.type} ${entry.mode} ${entry.owner}${extra}`;
}

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** Lines removed (`-`) and added (`+`), as multisets: order changes alone are not reported. */
function lineDiff(label: string, a: string[], b: string[]): string[] {
  const count = new Map<string, number>();
  for (const line of a) count.set(line, (count.get(line) ?? 0) + 1);
  for (const line of b) count.set(line, (count.get(line) ?? 0) - 1);
  const out: string[] = [];
  for (const [line, n] of count) {
    if (line === '' || n === 0) continue;
    for (let i = 0; i < Math.abs(n); i += 1) out.push(`${label} ${n > 0 ? '-' : '+'}${line}`);
  }
  return out;
}
