// Looks for secrets where they must never be (BOOT-05, SEC-03): every process's arguments and
// environment on this machine, the throwaway hosts' included (their PID namespaces are children
// of this one), sampled every 50 ms while a run goes on (see the timer below); and the files
// under given directories (a host's upper/ holds every file the host wrote; its /tmp and /run are
// tmpfs, seen through /proc/<its PID 1>/root). A hit names the secret's label and the place,
// never the secret.
//
// Every sample reads everything again (nothing is skipped as unchanged), so a sample must be
// cheap: on a 2-core machine a slow one takes a core from what it watches (issue #28). Every
// read goes into one buffer kept for the next (a fresh buffer per read, as readFileSync makes,
// costs 20 times the read itself for a large file: 300 ms against 15 ms for the 88 MB installer
// Ansible copies through ~/.ansible/tmp), and each distinct secret is looked for once, as bytes.
import { closeSync, fstatSync, openSync, readSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretWatch {
  /** Stops sampling; every place a secret was seen, as `<label>: <place>`. */
  stop(): string[];
}

/** Larger files are not read. */
const MAX_FILE = 512 * 2 ** 20;

/** secrets: label → secret. */
export function watchProcesses(secrets: Map<string, string>, dirs: string[] = []): SecretWatch {
  const needles = needlesOf(secrets);
  const hits = new Set<string>();
  const sample = () => {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      for (const file of ['cmdline', 'environ']) {
        const place = `/proc/${pid}/${file}`;
        const labels = labelsIn(readShared(place), needles);
        if (labels.length === 0) continue;
        const comm = readShared(`/proc/${pid}/comm`).toString().trim();
        for (const label of labels) hits.add(`${label}: ${place} (${comm})`);
      }
    }
    for (const dir of dirs)
      walkFiles(dir, (path, content) => {
        for (const label of labelsIn(content, needles)) hits.add(`${label}: ${path}`);
      });
  };
  // Every 50 ms while a sample takes less. A longer one (the 88 MB installer Ansible copies
  // grows in three hosts' ~/.ansible/tmp at once: 300 ms a sample) is followed after as long
  // again rather than at once, so the watcher never takes more than half a core from what it
  // watches; that is still more often than when a sample cost 20 times as much.
  let timer: NodeJS.Timeout;
  const next = () => {
    const start = performance.now();
    sample();
    const took = performance.now() - start;
    timer = setTimeout(next, Math.max(50 - took, took));
  };
  timer = setTimeout(next, 50);
  return {
    stop() {
      clearTimeout(timer);
      sample();
      return [...hits];
    },
  };
}

/** Every regular file under dir (up to 512 MiB each) that holds one of the secrets. */
export function filesHolding(dir: string, secrets: string[]): string[] {
  const needles = needlesOf(new Map(secrets.map((secret, i) => [`${i}`, secret])));
  const found: string[] = [];
  walkFiles(dir, (path, content) => {
    if (labelsIn(content, needles).length > 0) found.push(path);
  });
  return found;
}

/** visit's content is a view of the shared buffer: valid only during the call. */
function walkFiles(dir: string, visit: (path: string, content: Buffer) => void): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // gone meanwhile, or not there (yet)
  }
  for (const entry of entries) {
    const child = join(dir, entry.name);
    if (entry.isDirectory()) walkFiles(child, visit);
    else if (entry.isFile()) {
      const content = readShared(child, MAX_FILE);
      if (content !== undefined) visit(child, content);
    }
  }
}

interface Needle {
  bytes: Buffer;
  labels: string[];
}

/** Each distinct secret once (a list may hold the same token under two labels). */
function needlesOf(secrets: Map<string, string>): Needle[] {
  const labels = new Map<string, string[]>();
  for (const [label, secret] of secrets) labels.set(secret, [...(labels.get(secret) ?? []), label]);
  return [...labels].map(([secret, of]) => ({ bytes: Buffer.from(secret), labels: of }));
}

function labelsIn(content: Buffer, needles: Needle[]): string[] {
  return needles.filter((n) => content.includes(n.bytes)).flatMap((n) => n.labels);
}

let shared = Buffer.allocUnsafeSlow(2 ** 20);

/** A file's content in the shared buffer (a view, valid until the next read): empty when it
 *  cannot be read (the process ended, the file went away), undefined when larger than limit.
 *  /proc's files say size 0: read to the end, growing the buffer. */
function readShared(path: string): Buffer;
function readShared(path: string, limit: number): Buffer | undefined;
function readShared(path: string, limit = Infinity): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return shared.subarray(0, 0);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > limit) return undefined;
    if (shared.length <= size) shared = Buffer.allocUnsafeSlow(size + 1);
    let length = 0;
    for (;;) {
      if (length === shared.length) {
        const bigger = Buffer.allocUnsafeSlow(2 * length);
        shared.copy(bigger, 0, 0, length);
        shared = bigger;
      }
      const n = readSync(fd, shared, length, shared.length - length, null);
      length += n;
      if (length > limit) return undefined; // it grew past the limit while read
      if (n === 0) return shared.subarray(0, length);
    }
  } catch {
    return shared.subarray(0, 0);
  } finally {
    closeSync(fd);
  }
}
