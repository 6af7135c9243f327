// The demo's second half (scripts/demo.sh builds first): a local reference Core serving the
// release just built, an enrollment token, and a node registered manually with the real
// executable, run against a private real dockerd, shown connected and ready in Core's node
// list, then removed in Core, after which `oac-node run` exits 78. The one-line install
// (issue #4) will replace the manual steps.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore, type TestCore } from '../test/helpers/core.ts';
import {
  dockerAdapter,
  listNodes,
  nodeFiles,
  registerArgs,
  runExeAsync,
  waitForNode,
} from '../test/helpers/node.ts';
import { privateDockerd } from '../test/helpers/private-dockerd.ts';
import { requireExecutable, repoRoot } from '../test/helpers/executable.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);
const indent = (text: string) => text.trimEnd().replace(/^/gm, '    ');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'oac-demo-'));
  const dockerd = privateDockerd(join(work, 'docker'));
  let core: TestCore | undefined;
  try {
    say('==> Starting the reference Core with the release in .release/');
    core = await startCore(['--release-dir', join(repoRoot, '.release')]);
    say(`    Core ${core.core_url}, release server ${core.release_url}`);
    const deployment = await core.coreApi('GET', '/core/v1/sandbox/deployment');
    say(indent(JSON.stringify(deployment.body, null, 2)));

    say("==> Issuing an enrollment token (Web's Add node)");
    const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {
      max_active: 2,
    });
    const { token, expires_at, command } = issued.body as {
      token: string;
      expires_at: string;
      command: string | null;
    };
    say(`    expires_at ${expires_at}`);
    say(
      command ??
        '    (the one-line install command lands with issue #4; registering manually instead)',
    );

    say('==> Starting a private dockerd and loading the Runtime image from the release');
    await dockerd.start();
    const manifest = JSON.parse(readFileSync(join(repoRoot, '.release/manifest.json'), 'utf8')) as {
      files: Array<{ name: string; kind: string; image?: { reference: string } }>;
    };
    const image = manifest.files.find((f) => f.kind === 'runtime-image');
    if (image?.image === undefined) throw new Error('the release has no Runtime image');
    const loaded = dockerd.docker(['load', '-i', join(repoRoot, '.release', image.name)]);
    say(indent(loaded.stdout));

    say('==> oac-node register (docs/manual-registration.md)');
    const files = await nodeFiles(
      core,
      work,
      dockerAdapter(dockerd.host, image.image.reference),
      token,
    );
    const registered = await runExeAsync(registerArgs(core, files, 'demo-node'));
    if (registered.status !== 0) throw new Error(registered.stderr);
    say(indent(registered.stdout));
    const { node_id } = JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
      node_id: string;
    };

    say('==> oac-node run (what the service runs); its log:');
    const run = spawn(
      requireExecutable(),
      ['run', '--config', files.config, '--state-dir', files.stateDir],
      {
        env: {},
        stdio: ['ignore', 'inherit', 'pipe'],
      },
    );
    run.stderr.on('data', (chunk: Buffer) =>
      process.stdout.write(indent(chunk.toString('utf8')) + '\n'),
    );
    const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
    await waitForNode(core, node_id, (n) => n.connected && n.provider_ready, 30_000);
    say("==> Core's node list: connected and ready");
    say(indent(JSON.stringify(await listNodes(core), null, 2)));

    say('==> Removing the node in Core (Nodes → Remove node)');
    await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${node_id}`);
    say(`==> oac-node run exited with status ${String(await exited)} (78: do not restart)`);
  } finally {
    await core?.stop();
    await dockerd.stop();
    rmSync(work, { recursive: true, force: true });
  }
  say('==> Done: Core and dockerd stopped, scratch files removed.');
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
