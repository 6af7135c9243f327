// What a support bundle holds (issue #40, docs/support.md), each file collected on its own: one
// that cannot be had (the service stopped, Docker down, Core unreachable, a record unreadable)
// is named with why, and the rest is still collected. Nothing here writes to the host (plan.json's
// dry run takes the installer's lock, as every run does: support/rerun-plan.ts). Commands
// that ask the live system (systemctl, journalctl, docker) run only on the real root: under
// --root (tests, image building) they would describe this machine, not the tree.
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';
import { proxyEnvForNode, savedProxyEnv } from '../records/proxy-settings.ts';
import { probeCore } from '../src/net/core-probe.ts';
import { redactor } from '../src/redact.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { readNodeIdentity } from '../src/installation/node-state.ts';
import { nodeStatus } from '../installer/status.ts';
import { versionDocument } from './version-document.ts';
import { small, live } from './facts.ts';
import { hostFacts } from './host-facts.ts';
import { rerunPlan } from './rerun-plan.ts';

export interface Collected {
  name: string;
  data: Buffer;
  /** The fields masked in it by the collector (a proxy URL's password …), by name. */
  masked: string[];
}

/** The files that hold what programs printed: their collector masks every form of every secret
 *  value it knows in them (support/secret-scan.ts maskSecrets). plan.json holds a dry run's
 *  --json events, as last-run.jsonl holds a run's: masked by the program already, and here too. */
export const LOGS: ReadonlySet<string> = new Set([
  'service-log.txt',
  'last-run.jsonl',
  'plan.json',
]);

export interface Missing {
  name: string;
  reason: string;
}

type Collector = (host: Host, names: Layout) => Promise<Omit<Collected, 'name'>>;

const json = (value: unknown, masked: string[] = []) => ({
  data: Buffer.from(`${JSON.stringify(value, null, 2)}\n`),
  masked,
});
const text = (value: string) => ({ data: Buffer.from(value), masked: [] });

export const COLLECTORS: ReadonlyArray<[string, Collector]> = [
  ['version.json', () => Promise.resolve(json(versionDocument()))],
  ['status.json', async (host, names) => json((await nodeStatus(host, names.id)) ?? null)],
  ['record.json', async (host, names) => text((await small(host, names.journal)).toString())],
  ['unit.service', async (host, names) => text((await small(host, names.unitPath)).toString())],
  ['last-run.jsonl', async (host, names) => text((await small(host, names.lastRunLog)).toString())],
  ['proxy.json', async (host, names) => proxyNames(await savedProxyEnv(host, names))],
  ['host.json', async (host, names) => json(await hostFacts(host, names))],
  ['core.json', async (host, names) => json(await coreProbe(host, names))],
  [
    'systemctl-show.txt',
    async (host, names) => text(await live(host, 'systemctl', ['show', names.unitName])),
  ],
  [
    'service-log.txt',
    // The last lines, bounded: the journal of a node that retried for days is large.
    async (host, names) =>
      text(
        await live(host, 'journalctl', [
          '-u',
          names.unitName,
          '-n',
          '500',
          '--no-pager',
          '-o',
          'short-iso',
        ]),
      ),
  ],
  [
    'docker.txt',
    async (host, names) =>
      text(
        [
          await live(host, 'docker', ['version', '--format', '{{.Server.Version}}']),
          await live(host, 'docker', ['image', 'ls', '--no-trunc', 'oac-runtime']),
          await live(host, 'docker', ['network', 'inspect', names.network]),
        ].join('\n'),
      ),
  ],
  // Last: it may take up to a minute (support/rerun-plan.ts PLAN_LIMIT_MS).
  ['plan.json', async (host, names) => json(await rerunPlan(host, names))],
];

/** Whether Core answers the node's way (its proxy settings, its pin), how fast, and the clock. */
async function coreProbe(host: Host, names: Layout) {
  const record = await small(host, names.journal);
  const coreUrl = (JSON.parse(record.toString()) as { core_url?: unknown }).core_url;
  if (typeof coreUrl !== 'string') throw new Error('the record names no Core');
  const identity = await readNodeIdentity(host, names).catch(() => undefined);
  const pin = identity?.core_url === coreUrl ? (identity.core_pin ?? null) : null;
  pinOrigin(new URL(coreUrl).origin, pin);
  const proxy = await proxyEnvForNode(host, names);
  const probe = await probeCore(new URL(coreUrl).origin, sharedDispatcher(proxy));
  // A library's words may quote what it was given: masked as every line this program prints.
  const error = probe.error === undefined ? {} : { error: redactor.redact(probe.error) };
  return { core_url: coreUrl, pinned: pin !== null, ...probe, ...error };
}

/** The proxy variables in force for the service: names and hosts, never a user or password. */
function proxyNames(env: Record<string, string>) {
  const masked: string[] = [];
  const shown = Object.fromEntries(
    Object.entries(env).map(([name, value]) => {
      try {
        const url = new URL(value);
        if (url.username !== '' || url.password !== '') masked.push(name);
        return [name, `${url.protocol}//${url.host}`];
      } catch {
        masked.push(name);
        return [name, value.includes('@') ? '(masked)' : value];
      }
    }),
  );
  return json(shown, masked);
}
