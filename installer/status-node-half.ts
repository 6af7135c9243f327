// `status`, the node half's part (issue #23): the same plan install makes, with nothing applied.
// The installed program runs its dry run as oac-node (HOST-08), exactly as install's probe of
// the node half does, for the configuration the node serves (read from Core with the node's
// own credential) and the node's recorded inputs; each of its steps that would change something
// is drift (a Runtime image removed from Docker, a microsandbox file damaged …). Root never
// reads the node's files itself for this.
import type { Journal } from '../records/journal.ts';
import type { RegisteredIdentity } from '../src/node/identity-store.ts';
import { KEYS } from '../src/installation/desired.ts';
import type { InstallContext } from '../src/installation/root-context.ts';
import { nodeHalfDriver, type NodeHalfStep } from '../src/installation/node-half.ts';
import { readServingGeneration } from '../src/installation/node-state.ts';
import type { NodeHalfResource } from '../src/resources/resources.ts';
import { judgeStep } from './status-judge.ts';
import { readGroups } from '../src/host/accounts.ts';
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import type { ProxyEnv } from '../src/net/proxy-env.ts';
import type { JournalResource } from '../records/journal.ts';
import type { Resource } from '../src/resources/resources.ts';

/** One resource as status reports it (root's or the node half's). */
export interface ResourceStatus {
  key: string;
  kind: Resource['kind'];
  name: string;
  ownership: JournalResource['ownership'];
  /** present: as the installer left it; missing: gone; drifted: there, but changed. */
  state: 'present' | 'missing' | 'drifted';
  /** For missing or drifted: what differs and what to do. */
  detail?: string;
}

export interface NodeHalfStatus {
  /** checked: its plan was made; unknown: it could not be (detail says why). */
  state: 'checked' | 'unknown';
  detail?: string;
  resources: ResourceStatus[];
}

const NODE_HALF: NodeHalfResource = {
  kind: 'node',
  key: KEYS.node,
  phase: 'prepare',
  title: 'Node files, Runtime image, network and registration (as oac-node)',
};

export async function nodeHalfStatus(
  host: Host,
  names: Layout,
  journal: Journal,
  identity: RegisteredIdentity,
  proxyEnv: ProxyEnv,
): Promise<NodeHalfStatus> {
  const group = journal.inputs.group;
  const gid = (await readGroups(host)).find((g) => g.name === group)?.gid;
  if (group === null || gid === undefined)
    return unknown(`the provider group ${group ?? '(none recorded)'} is not on this host`);
  const generation = (await readServingGeneration(host, names)) ?? identity.approved.generation;
  const client = new CoreClient({
    coreUrl: identity.core_url,
    dispatcher: sharedDispatcher(proxyEnv),
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const auth = { kind: 'node', nodeId: identity.node_id, credential: identity.credential } as const;
  const configuration = await client.readConfiguration(auth, generation);
  const ctx: InstallContext = {
    host,
    layout: names,
    journal,
    emit: () => undefined,
    node: {
      coreUrl: identity.core_url,
      corePin: identity.core_pin ?? null,
      name: identity.name,
      token: undefined,
      configuration,
      providerGroup: { name: group, gid },
      ...(journal.inputs.checkpoint_root === null
        ? {}
        : { checkpointRoot: journal.inputs.checkpoint_root }),
      proxyEnv,
    },
  };
  const { steps } = await nodeHalfDriver.probe(NODE_HALF, ctx);
  if (steps === undefined) return unknown('the node program is not installed');
  return { state: 'checked', resources: steps.map(statusOf) };
}

function unknown(detail: string): NodeHalfStatus {
  return { state: 'unknown', detail, resources: [] };
}

/** One step of the node half's plan as status reports it: what would change is drift. */
function statusOf({ step, title, action }: NodeHalfStep): ResourceStatus {
  return {
    key: `node:${step}`,
    kind: 'node',
    name: title,
    ownership: 'owned',
    ...judgeStep(action),
  };
}
