// systemd through systemctl. With --root only the offline verbs work (enable, disable,
// is-enabled); starting and asking for activity needs the real manager (docs/e2e-hosts.md).
import { oacError } from '../messages.ts';
import type { OacError } from '../errors.ts';
import type { Host } from './host.ts';

export async function systemctl(
  host: Host,
  args: string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const root = host.prefixed ? [`--root=${host.root}`] : [];
  return host.run('systemctl', [...root, ...args]);
}

/** REL-01: a systemctl the run needs that fails (a unit a drop-in breaks, a manager that will
 *  not reload) is the host's condition: one line with systemd's own last word, and a hint. */
export async function mustSystemctl(host: Host, args: string[]): Promise<void> {
  const r = await systemctl(host, args);
  if (r.exitCode !== 0) throw systemctlFailed(args, r);
}

/** A systemctl that failed, as one line with systemd's own reason (REL-01). */
export function systemctlFailed(
  args: string[],
  r: { exitCode?: number | null; stderr: string },
): OacError {
  // systemctl says what it did first ("Created symlink …"), then why it failed, then where to
  // read more ("See system logs and 'systemctl status …' for details."): the hint says that.
  const said = r.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^See .* for details\.?$/.test(line));
  const reason = (said.at(-1) ?? `exit status ${r.exitCode}`).slice(0, 300);
  return oacError('systemctl_failed', { command: args.join(' '), reason });
}

/** Whether units can be started here: a booted systemd and no --root. */
export async function canStartUnits(host: Host): Promise<boolean> {
  return !host.prefixed && (await host.lstat('/run/systemd/system')) !== undefined;
}

export async function isEnabled(host: Host, unit: string): Promise<boolean> {
  return (await systemctl(host, ['is-enabled', '--quiet', unit])).exitCode === 0;
}

export async function isActive(host: Host, unit: string): Promise<boolean> {
  if (!(await canStartUnits(host))) return false;
  return (await systemctl(host, ['is-active', '--quiet', unit])).exitCode === 0;
}

/** What the manager says of a unit now: running (`is-active`'s answer: active, or reloading),
 *  and whether it runs an older copy of the unit file than the one on disk (a run killed between
 *  writing the unit and `daemon-reload`). One `systemctl show` for both (issue #41: the unit's
 *  probe and the service's share it through their plan, src/resources/drivers/unit.ts). */
export interface UnitState {
  active: boolean;
  needsReload: boolean;
}

/** The states `systemctl is-active` counts as active (systemd 254 added refreshing). */
const ACTIVE_STATES = new Set(['active', 'reloading', 'refreshing']);

export async function unitState(host: Host, unit: string): Promise<UnitState> {
  if (!(await canStartUnits(host))) return { active: false, needsReload: false };
  const value = await showProperties(host, unit, ['ActiveState', 'NeedDaemonReload']);
  return {
    active: ACTIVE_STATES.has(value('ActiveState')),
    needsReload: value('NeedDaemonReload') === 'yes',
  };
}

/** One `systemctl show` of a unit's properties; a property's value, or '' when the manager did
 *  not answer (neither running nor stale, as is-active's failure said). */
async function showProperties(
  host: Host,
  unit: string,
  props: string[],
): Promise<(name: string) => string> {
  const r = await systemctl(host, ['show', ...props.map((p) => `--property=${p}`), unit]);
  return (name) =>
    r.exitCode === 0 ? (new RegExp(`^${name}=(.*)$`, 'm').exec(r.stdout)?.[1] ?? '') : '';
}

/** systemd lists the unit in some state (loaded, failed, not found but remembered). */
export async function unitListed(host: Host, unit: string): Promise<boolean> {
  if (!(await canStartUnits(host))) return false;
  const listed = await systemctl(host, ['list-units', '--all', '--plain', '--no-legend', unit]);
  return listed.stdout.trim() !== '';
}

/** Makes systemd forget a unit whose file is gone: reloaded, and its failed state reset, so no
 *  state of it is listed (DECL-04). Nothing to do when systemd lists no such unit. */
export async function forgetUnit(host: Host, unit: string): Promise<void> {
  if (!(await unitListed(host, unit))) return;
  await systemctl(host, ['daemon-reload']);
  await systemctl(host, ['reset-failed', unit]);
}

/** What systemd says of a started unit's process (UPG-02: a new program that exits at start is
 *  seen at once, not after the whole wait); undefined where units cannot be started (--root). */
export interface UnitRun {
  active: string;
  sub: string;
  /** The run's identity: another after any restart, systemd's or ours. */
  invocation: string;
  status: string;
}

export async function unitRun(host: Host, unit: string): Promise<UnitRun | undefined> {
  if (!(await canStartUnits(host))) return undefined;
  const props = ['ActiveState', 'SubState', 'InvocationID', 'ExecMainStatus'];
  const value = await showProperties(host, unit, props);
  return {
    active: value('ActiveState'),
    sub: value('SubState'),
    invocation: value('InvocationID'),
    status: value('ExecMainStatus'),
  };
}

/** Whether `path` is a mask: the link to /dev/null `systemctl mask` puts where a unit file goes. */
export async function isMaskLink(host: Host, path: string): Promise<boolean> {
  return (
    (await host.lstat(path))?.isSymbolicLink() === true &&
    (await host.readLink(path)) === '/dev/null'
  );
}
