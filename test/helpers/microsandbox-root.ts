// A microsandbox host on a scratch --root tree, with the reference Core serving a real (small)
// release, for the built executable's whole commands (test/host/prepare-root.test.ts,
// test/host/golden-install.test.ts): /dev/kvm root:kvm 0660 and glibc's loader, as preflight
// wants them (PRE-05), and a run of the executable in a private mount namespace whose /var/lib
// is a scratch directory of the test's, so the host's own node state is never reached.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRelease } from '../../fixtures/release/build.ts';
import { writeFakeDist } from '../../fixtures/release/fake-dist.ts';
import { startCore, type TestCore } from './core.ts';
import { shq } from './dockerd-namespace.ts';
import { requireExecutable } from './executable.ts';
import { makeScratchRoot } from './scratch-root.ts';

export interface MicrosandboxRoot {
  scratch: string;
  core: TestCore;
  root: string;
}

/** A scratch root, the release built in `scratch` (its prefix: a short path, since the root's
 *  microsandbox runtime home must fit in 48 bytes, PRE-05) and Core serving it for `id`. */
export async function microsandboxRoot(prefix: string, id: string): Promise<MicrosandboxRoot> {
  const scratch = mkdtempSync(prefix);
  chmodSync(scratch, 0o755);
  const dist = await writeFakeDist(join(scratch, 'dist'), 'microsandbox-root');
  const release = await buildRelease({ ...dist, outDir: join(scratch, 'rel'), version: '0.0.0' });
  const core = await startCore([
    ...['--release-dir', release.outDir, '--provider', 'microsandbox'],
    ...['--installation-id', id],
  ]);
  const root = makeScratchRoot();
  assert.ok(Buffer.byteLength(`${root}/var/lib/oac-node/.oac/m/run`) <= 48, root);
  if (!/^kvm:/m.test(readFileSync(join(root, 'etc/group'), 'utf8')))
    execFileSync('groupadd', ['--prefix', root, '--system', 'kvm']);
  const group = readFileSync(join(root, 'etc/group'), 'utf8');
  const kvmGid = Number(/^kvm:[^:]*:(\d+):/m.exec(group)?.[1]);
  mkdirSync(join(root, 'dev'));
  execFileSync('mknod', [join(root, 'dev/kvm'), 'c', '10', '232']);
  chownSync(join(root, 'dev/kvm'), 0, kvmGid);
  chmodSync(join(root, 'dev/kvm'), 0o660);
  mkdirSync(join(root, 'lib64'));
  writeFileSync(join(root, 'lib64/ld-linux-x86-64.so.2'), '');
  return { scratch, core, root };
}

export interface RootRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The NDJSON events of --json, in order. */
  events: RunEvent[];
}

export interface RunEvent {
  type: string;
  step?: string;
  code?: string;
  action?: { kind: string };
  result?: { outcome: string };
}

/** The executable with `args` as root runs it, `stdin` on its standard input, in a mount
 *  namespace of its own whose /var/lib is `varLib`; killed after 180 s. */
export function runWithVarLib(varLib: string, args: string[], stdin = ''): Promise<RootRun> {
  const script = `mount --bind ${shq(varLib)} /var/lib && exec "$@"`;
  const child = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', requireExecutable(), ...args],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdin.end(stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise<RootRun>((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as RunEvent);
      resolve({ status, stdout, stderr, events });
    }),
  );
}
