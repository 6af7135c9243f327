// Root's half of an install on a scratch --root tree (the golden tests' setting,
// test/host/reconcile-root.test.ts): the desired state less what the node half makes (HOST-08:
// it needs Core and Docker), reconciled with the real drivers, and uninstalled. Used by the
// host tier's crash matrix (test/host/crash-root.test.ts) and by the child process it kills
// (test/helpers/crash-root-child.ts, through test/helpers/crash-points.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal } from '../../records/journal.ts';
import { desired } from './desired.ts';
import { sha256 } from '../../src/resources/sha256.ts';
import { planAndApply } from '../../src/installation/plan-for.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { uninstall } from '../../uninstaller/uninstall.ts';

export const ID = parseInstallationId('inst-1');
export const CORE = 'http://127.0.0.1:9';
export const names = layout(ID);
/** The env file's digest key, fixed (as the file's own key on a rerun). */
export const ENV_KEY = 'e0'.repeat(32);

/** The node program a scratch root installs: a small file beside the tree. */
export function programFor(root: string): string {
  const program = join(root, '..', `${root.split('/').pop()}-program`);
  writeFileSync(program, '#!/bin/sh\necho node program\n');
  return program;
}

/** The root half of desired(): everything but what the node half makes (HOST-08). */
export function rootHalf(program: string, proxyEnv: Record<string, string> = {}) {
  return desired({
    layout: names,
    provider: 'docker',
    group: 'docker',
    coreUrl: CORE,
    corePin: null,
    proxyEnv,
    envKey: ENV_KEY,
    program: { source: program, sha256: sha256(readFileSync(program)) },
  }).filter((r) => r.phase !== 'prepare');
}

/** Installs root's half on `root`, as install does after preflight (inputs, reconcile, the
 *  digest cache). */
export async function installRootHalf(root: string, program: string): Promise<void> {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  await journal.setInputs({ provider: 'docker', group: 'docker', checkpoint_root: null });
  const emit = () => undefined;
  await planAndApply(
    rootHalf(program),
    { host, layout: names, journal, emit },
    { dryRun: false, emit },
  );
  await journal.saveDigests();
}

export async function uninstallRootHalf(root: string): Promise<void> {
  await uninstall({ root, installationId: ID, force: false, dryRun: false }, () => undefined);
}
