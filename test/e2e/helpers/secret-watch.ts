// Looks for secrets where they must never be (BOOT-05, SEC-03): every process's arguments and
// environment on this machine, the throwaway hosts' included (their PID namespaces are children
// of this one), sampled every 50 ms while a run goes on; and the files under given directories
// (a host's upper/ holds every file the host wrote; its /tmp and /run are tmpfs, seen through
// /proc/<its PID 1>/root). A hit names the secret's label and the place, never the secret.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretWatch {
  /** Stops sampling; every place a secret was seen, as `<label>: <place>`. */
  stop(): string[];
}

/** secrets: label → secret. */
export function watchProcesses(secrets: Map<string, string>, dirs: string[] = []): SecretWatch {
  const hits = new Set<string>();
  const sample = () => {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      for (const file of ['cmdline', 'environ']) {
        const place = `/proc/${pid}/${file}`;
        for (const label of labelsIn(readOrEmpty(place), secrets))
          hits.add(`${label}: ${place} (${readOrEmpty(`/proc/${pid}/comm`).toString().trim()})`);
      }
    }
    for (const dir of dirs)
      walkFiles(dir, (path, content) => {
        for (const label of labelsIn(content, secrets)) hits.add(`${label}: ${path}`);
      });
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...hits];
    },
  };
}

/** Every regular file under dir (up to 512 MiB each) that holds one of the secrets. */
export function filesHolding(dir: string, secrets: string[]): string[] {
  const found: string[] = [];
  walkFiles(dir, (path, content) => {
    if (secrets.some((secret) => content.includes(secret))) found.push(path);
  });
  return found;
}

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
    else if (entry.isFile() && sizeOf(child) <= 512 * 2 ** 20) visit(child, readOrEmpty(child));
  }
}

function labelsIn(content: Buffer, secrets: Map<string, string>): string[] {
  return [...secrets].filter(([, secret]) => content.includes(secret)).map(([label]) => label);
}

function readOrEmpty(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0); // the process ended, or the file went away
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return Infinity;
  }
}
