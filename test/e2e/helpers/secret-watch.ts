// Looks for secrets where they must never be (BOOT-05, SEC-03): every process's arguments and
// environment on this machine, the throwaway hosts' included (their PID namespaces are children
// of this one), sampled every 50 ms while a run goes on; and the files under given directories
// (a host's upper/ holds every file the host wrote). A hit names the place, never the secret.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretWatch {
  /** Stops sampling; every place a secret was seen. */
  stop(): string[];
}

export function watchProcesses(secrets: string[], dirs: string[] = []): SecretWatch {
  const hits = new Set<string>();
  const sample = () => {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      for (const file of ['cmdline', 'environ']) {
        if (holdsSecret(readOrEmpty(`/proc/${pid}/${file}`), secrets))
          hits.add(`/proc/${pid}/${file} (${readOrEmpty(`/proc/${pid}/comm`).toString().trim()})`);
      }
    }
    for (const dir of dirs) for (const hit of filesHolding(dir, secrets)) hits.add(hit);
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
  const walk = (path: string) => {
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return; // gone meanwhile, or not there (yet)
    }
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && sizeOf(child) <= 512 * 2 ** 20) {
        if (holdsSecret(readOrEmpty(child), secrets)) found.push(child);
      }
    }
  };
  walk(dir);
  return found;
}

function holdsSecret(content: Buffer | string, secrets: string[]): boolean {
  return secrets.some((secret) => content.includes(secret));
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
