// The cached root file system every e2e host boots from: built by scripts/e2e-rootfs.sh (once per
// recipe, about 2 minutes) and only ever used as a read-only overlay lower layer.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const rootfsScript = `${repoRoot}scripts/e2e-rootfs.sh`;

/** Where each boot's scratch dir (overlay upper layer, /var/lib/docker, logs) lives. */
export const scratchRoot = process.env.OAC_E2E_SCRATCH ?? '/var/tmp/oac-e2e';

/**
 * Every machine, scratch dir and cgroup the harness makes is named `oac-e2e-<index>`; its veth is
 * `ve-oac-e2e-<index>` (nspawn's name, which must fit in 15 characters: index < 10000).
 * scripts/e2e-rootfs.sh clean uses the same names.
 */
export const MACHINE_PREFIX = 'oac-e2e-';
export const MAX_INDEX = 10_000;

/** The Debian releases an e2e host can be (HOST-12): bookworm hosts the whole tier, the other two
 *  the distribution matrix (test/e2e/distributions.test.ts). */
export type Suite = 'bookworm' | 'bullseye' | 'trixie';

const built = new Map<Suite, Promise<string>>();

/** Builds the suite's rootfs when its recipe changed (progress on stderr), returns its path. */
export function ensureRootfs(suite: Suite = 'bookworm'): Promise<string> {
  let path = built.get(suite);
  if (!path) {
    path = buildRootfs(suite);
    built.set(suite, path);
  }
  return path;
}

function buildRootfs(suite: Suite): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (process.getuid?.() !== 0) {
      reject(new Error('e2e hosts need root (debootstrap, mounts, systemd-nspawn)'));
      return;
    }
    const child = spawn('bash', [rootfsScript, 'build', suite], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.once('error', reject);
    child.once('exit', (code) => {
      const path = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && path.startsWith('/')) resolve(path);
      else reject(new Error(`bash scripts/e2e-rootfs.sh build ${suite} failed (exit ${code})`));
    });
  });
}
