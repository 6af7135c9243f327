// The node half's plan before its program is installed (a new host, or a dry run on one): no
// copy of the program oac-node may run exists yet, so root plans the node account's part of
// the installation's value itself, with the checks it can make without writing anything
// (issue #23): a node directory's path taken by something else, a shared checkpoint store the
// node account could not write. Each is a refusal of the plan, found before the first write.
import { refuse, type Action, type ActionPart } from '../core/step.ts';
import { oacError } from '../messages.ts';
import type { NodeResource } from '../node/drivers/node-context.ts';
import { NO_PRIVILEGES } from '../resources/drivers/as-node.ts';
import type { InstallContext } from './root-context.ts';
import { NODE_HOME } from '../layout.ts';

export async function firstInstallSteps(
  ctx: InstallContext,
  part: NodeResource[],
  ids: { uid: number; gid: number },
): Promise<ActionPart[]> {
  const steps: ActionPart[] = [];
  for (const r of part)
    steps.push({ step: r.key, title: r.title, action: await firstAction(r, ctx, ids) });
  return steps;
}

async function firstAction(
  r: NodeResource,
  ctx: InstallContext,
  ids: { uid: number; gid: number },
): Promise<Action> {
  if (r.kind !== 'directory') return { kind: 'create', detail: r.title };
  // lstat only, each directory from the node's home down: root reads nothing in, writes
  // nothing under, and follows no link of, the node's paths here (the node account may have
  // made them, and must not learn through root what lies elsewhere).
  if (r.madeBy === 'node') {
    const taken = await firstNotDirectory(ctx, r.path);
    if (taken !== undefined) return refuse(oacError('not_a_directory', { path: taken }));
  }
  const found = await ctx.host.lstat(r.path);
  if (found !== undefined && !found.isDirectory())
    return refuse(oacError('not_a_directory', { path: r.path }));
  if (r.madeBy === 'operator' && !(await nodeCanWrite(ctx, r.path, ids)))
    return refuse(oacError('checkpoint_root_unwritable', { path: r.path }));
  if (found !== undefined) return { kind: 'unchanged', detail: r.path };
  return { kind: 'create', detail: `create ${r.path}` };
}

/** The first path from the node's home down to `path` that is there and no directory (a link
 *  or a file); undefined when each is a directory or the walk reaches one that is missing. */
async function firstNotDirectory(ctx: InstallContext, path: string): Promise<string | undefined> {
  if (!path.startsWith(`${NODE_HOME}/`)) return undefined;
  const parts = path.slice(NODE_HOME.length + 1).split('/');
  for (let i = 1; i <= parts.length; i++) {
    const at = `${NODE_HOME}/${parts.slice(0, i).join('/')}`;
    const found = await ctx.host.lstat(at);
    if (found === undefined) return undefined;
    if (!found.isDirectory()) return at;
  }
  return undefined;
}

/** Whether the node account (its IDs and the provider group, as the node half runs) can write
 *  and enter `path`: asked of the kernel as that account, never judged from modes by root. */
async function nodeCanWrite(
  ctx: InstallContext,
  path: string,
  ids: { uid: number; gid: number },
): Promise<boolean> {
  const as = ['--reuid', String(ids.uid), '--regid', String(ids.gid)];
  as.push('--groups', String(ctx.node.providerGroup.gid), ...NO_PRIVILEGES, '--');
  const where = ctx.host.path(path);
  const test = ['test', '-d', where, '-a', '-w', where, '-a', '-x', where];
  const r = await ctx.host.run('setpriv', [...as, ...test], { newSession: true });
  return r.exitCode === 0;
}
