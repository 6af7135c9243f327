// The demo's second half (scripts/demo.sh builds first): a throwaway Debian 12 host with real
// systemd and Docker (test/e2e/harness), the reference Core serving the release just built, an
// enrollment token and its one-line install command, pasted into the host's sh as an operator
// would: the node shows up connected and ready in Core's node list; the same line again
// changes nothing; `status` finds no drift; a size change in Core is prepared by the node itself;
// then Core removes the node and the uninstall command removes what the installer created,
// keeping the Runtime image.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootHost, type E2eHost } from '../test/e2e/harness/host.ts';
import { startCoreInHost, type CoreInHost } from '../test/e2e/helpers/core-in-host.ts';
import { fromLine } from '../test/e2e/helpers/install-line.ts';
import { releaseFromDist } from '../test/e2e/helpers/release.ts';
import { hideToken } from './hide-token.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);
const indent = (text: string) => text.trimEnd().replace(/^/gm, '    ');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'oac-demo-'));
  let host: E2eHost | undefined;
  let core: CoreInHost | undefined;
  try {
    await releaseFromDist(join(work, 'release'));

    say(
      '==> Booting a throwaway Debian 12 host (systemd + Docker; the first run builds it, ~2 min)',
    );
    host = await bootHost();
    say(`    ${host.name}: ${host.bootState}`);
    say('==> Starting the reference Core (the host reaches it at 127.0.0.1)');
    // `--tls`: Core over HTTPS under a private CA of its own, which the host does not trust; the
    // line Web prints then carries the pin of that CA (TRUST-01, docs/private-ca.md).
    const tls = process.argv.includes('--tls') ? ['--tls'] : [];
    core = await startCoreInHost(host, ['--release-dir', join(work, 'release'), ...tls]);
    say(`    Core ${core.coreUrl}`);
    if (core.corePin !== undefined)
      say(`    under a private CA the host does not trust; its pin: ${core.corePin}`);

    say('==> Nodes → Add node: the command Web would show');
    const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {
      max_active: 2,
    });
    const { command, expires_at } = issued.body as { command: string; expires_at: string };
    say(indent(hideToken(command)));
    say(`    (token hidden here; it expires ${expires_at})`);

    say('==> Pasting it into the host as root');
    const first = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    say(indent(`${first.stderr}${first.stdout}`));
    if (first.status !== 0)
      throw new Error(`the install failed with status ${String(first.status)}`);

    say("==> Core's node list");
    say(
      indent(JSON.stringify((await core.coreApi('GET', '/core/v1/sandbox/nodes')).body, null, 2)),
    );

    say('==> The same line again (the token is used up; the node uses its own credential)');
    const again = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    say(indent(`${again.stderr}${again.stdout}`));
    if (again.status !== 0) throw new Error(`the rerun failed with status ${String(again.status)}`);

    say('==> On the host');
    say(
      indent(
        await host.shOk(
          "systemctl --no-pager --lines=0 status 'oac-node-*' | head -4; id oac-node; docker network ls --filter name=oac-node",
        ),
      ),
    );

    const { installationId, uninstall } = fromLine(command);
    say('==> oac-node status: the record against the host against Core');
    const status = await host.exec([
      ...uninstall.slice(0, 4),
      'status',
      '--installation-id',
      installationId,
    ]);
    say(indent(`${status.stderr}${status.stdout}`));

    say('==> Settings → the sandbox size changes in Core: the node prepares it by itself');
    await changeSize(core);

    say('==> Nodes → Remove node, then the uninstall command on the host');
    const nodeId =
      (
        (await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as {
          nodes: Array<{ node_id: string }>;
        }
      ).nodes[0]?.node_id ?? '';
    await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${nodeId}`);
    const removed = await host.exec(uninstall);
    say(indent(`${removed.stderr}${removed.stdout}`));
    if (removed.status !== 0)
      throw new Error(`the uninstall failed with status ${String(removed.status)}`);
    say(
      indent(
        await host.shOk(
          // Nothing of the node left: no account, no records, no network, no unit in any state.
          'id oac-node 2>&1; ls /etc/oac-node 2>&1; echo "networks: $(docker network ls --filter name=oac-node --format "{{.Name}}" | wc -l)"; echo "units: $(systemctl list-units --all --plain --no-legend "oac-node*" | wc -l), system $(systemctl is-system-running)"',
        ),
      ),
    );
  } finally {
    await core?.stop();
    await host?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  say('==> Done: the host is gone, the Core stopped.');
}

/** A new generation (more memory per sandbox); waits until the node reports it ready. */
async function changeSize(core: CoreInHost): Promise<void> {
  const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
    generation: number;
  };
  const specification = { ...deployment.specification, memory_mib: 512 };
  await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification });
  const target = deployment.generation + 1;
  say(`    generation ${deployment.generation} → ${target} (memory_mib 512)`);
  for (let i = 0; i < 240; i += 1) {
    const nodes = (await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as {
      nodes: Array<{ generation: number; rollout: { state: string } }>;
    };
    const node = nodes.nodes[0];
    if (node?.rollout.state === 'ready' && node.generation === target) {
      say(`    the node is ready for generation ${target} and serves it (Ready for target)`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the node did not become ready for generation ${target}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
