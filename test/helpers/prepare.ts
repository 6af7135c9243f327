// Runs the real executable's `_prepare` the way the installer does (setpriv to UID 65532 with the
// provider group, no_new_privs and no capabilities, a new session, the request on stdin) and collects its NDJSON events.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { buildRelease } from '../../fixtures/release/build.ts';
import { writeFakeDist } from '../../fixtures/release/fake-dist.ts';
import { NO_PRIVILEGES } from '../../src/resources/drivers/as-node.ts';
import { startCore, type TestCore } from './core.ts';
import { requireExecutable } from './executable.ts';
import { privateDockerd, type PrivateDockerd } from './private-dockerd.ts';

export const NODE_UID = 65532;

export interface Prepared {
  status: number | null;
  events: Array<{
    type: string;
    step?: string;
    code?: string;
    message?: string;
    result?: { outcome: string };
  }>;
  stderr: string;
}

export function runPrepare(exe: string, groupGid: number, request: object): Promise<Prepared> {
  const ids = [
    '--reuid',
    String(NODE_UID),
    '--regid',
    String(NODE_UID),
    '--groups',
    String(groupGid),
  ];
  // The installer's own flags (SEC-08), so the helper runs here as it does on a host.
  const child = spawn('setpriv', [...ids, ...NO_PRIVILEGES, '--', exe, '_prepare'], {
    env: {},
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(`${JSON.stringify(request)}\n`);
  return new Promise((resolve) =>
    child.once('close', (status) =>
      resolve({
        status,
        stderr,
        events: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Prepared['events'][number]),
      }),
    ),
  );
}

/** Each step's outcome, by step ID. */
export const outcomes = (p: Prepared): Record<string, string | undefined> =>
  Object.fromEntries(
    p.events.filter((e) => e.type === 'step-done').map((e) => [e.step, e.result?.outcome]),
  );

/** A `_prepare` request for a node named `name` in `<scratch>/<name>` (owned by UID 65532),
 *  with Core's configuration read with `token` (which does not use it up). */
export async function prepareRequest(
  core: { core_url: string; console_url: string },
  scratch: string,
  name: string,
  token: string,
  adapter: { docker_host: string; checkpoint_root?: string | null },
) {
  const home = join(scratch, name);
  mkdirSync(home, { recursive: true });
  chownSync(home, NODE_UID, NODE_UID);
  const url = `${core.core_url}/api/v1/sandbox-node/configuration`;
  const response = await request(url, { headers: { authorization: `Bearer ${token}` } });
  const configuration = (await response.body.json()) as { installation_id: string };
  return {
    installation_id: configuration.installation_id,
    core_url: core.core_url,
    console_url: core.console_url,
    name,
    token: token as string | null,
    configuration,
    state_dir: join(home, 'state'),
    store_dir: join(home, 'm'),
    checkpoint_root: adapter.checkpoint_root ?? null,
    docker_host: adapter.docker_host,
    proxy_env: {},
  };
}

export interface PrepareFixture {
  scratch: string;
  /** The built executable, copied where UID 65532 can run it. */
  exe: string;
  core: TestCore;
  dockerd: PrivateDockerd;
  dockerGid: number;
  release: Awaited<ReturnType<typeof buildRelease>>;
  stop(): Promise<void>;
}

/** What a `_prepare` test runs against: a scratch directory oac-node can enter, the executable
 *  in it, a private real dockerd, a release of a fake dist and the reference Core serving it. */
export async function startPrepareFixture(tag: string): Promise<PrepareFixture> {
  const scratch = mkdtempSync(join(tmpdir(), `oac-${tag}-`));
  chmodSync(scratch, 0o755);
  const group = /^docker:[^:]*:(\d+):/m.exec(readFileSync('/etc/group', 'utf8'));
  assert.ok(group, 'the docker group exists (Debian docker.io makes it)');
  const exe = join(scratch, 'oac-node');
  copyFileSync(requireExecutable(), exe);
  chmodSync(exe, 0o755);
  const dockerd = privateDockerd(join(scratch, 'docker'));
  await dockerd.start();
  const dist = await writeFakeDist(join(scratch, 'dist'), tag);
  const release = await buildRelease({
    ...dist,
    outDir: join(scratch, 'release'),
    version: '0.0.0',
  });
  const core = await startCore(['--release-dir', release.outDir]);
  const stop = async () => {
    await core.stop();
    await dockerd.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
  return { scratch, exe, core, dockerd, dockerGid: Number(group[1]), release, stop };
}
