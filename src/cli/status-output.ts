// What `oac-node status` prints for a person (src/cli/commands/status.ts; --json prints the
// document itself): one row per resource, the service, Core, and the problems, first first.
import type { NodeStatus } from '../../installer/status.ts';
import { printable } from '../ui/printable.ts';
import { forOperator } from '../ui/operator-shell.ts';

export function renderStatus(s: NodeStatus): string {
  const pinned = s.core_pin === null ? '' : `, its key pinned to ${s.core_pin}`;
  const lines = [
    `Node of installation ${s.installation_id} (Core ${s.core_url}${pinned})`,
    programLine(s),
    ...lastRunLines(s),
  ];
  const width = Math.max(...s.resources.map((r) => r.name.length), 4);
  for (const r of s.resources) {
    const state = r.state === 'present' ? 'present' : `${r.state}: ${r.detail ?? ''}`;
    lines.push(`  ${r.ownership.padEnd(8)} ${r.kind.padEnd(16)} ${r.name.padEnd(width)} ${state}`);
  }
  if (s.node_half.state === 'unknown')
    lines.push(`Node half: not checked (${s.node_half.detail ?? 'no reason given'})`);
  const service = `${s.service.enabled ? 'enabled' : 'not enabled'}, ${s.service.active ? 'active' : 'not running'}`;
  lines.push(`Service: ${s.service.unit} ${service}`);
  const node = s.core.node_id === undefined ? '' : ` node ${s.core.node_id}`;
  const core =
    s.core.state === 'ready'
      ? 'connected and ready'
      : `${s.core.state}${s.core.detail ? ` (${s.core.detail})` : ''}`;
  lines.push(`Core:${node} ${core}`);
  if (s.problems.length === 0)
    lines.push('No drift: the host matches the record, and Core has the node ready.');
  else
    lines.push(
      `${s.problems.length === 1 ? '1 problem' : `${s.problems.length} problems`}:`,
      ...s.problems.map((p) => `  - ${p}`),
    );
  if (s.next.length > 0)
    lines.push('Next:', ...s.next.map((n) => (n.startsWith('  ') ? `  ${n}` : `  - ${n}`)));
  // Names and details come from the record, the node's files and Core (SEC-03, SEC-09).
  return `${lines.map((line) => printable(forOperator(line))).join('\n')}\n`;
}

/** The program the service runs, and what it serves when Core could be asked. */
function programLine(s: NodeStatus): string {
  const program = `Program: oac-node ${s.program.version ?? '(version not recorded)'}`;
  if (s.serving === null) return program;
  const release = s.serving.release === null ? '' : `, release ${s.serving.release}`;
  return `${program}; serving generation ${s.serving.generation}${release}`;
}

/** When the host last changed, by which run, and where that run's events are (issue #39). */
function lastRunLines(s: NodeStatus): string[] {
  const run = s.last_run;
  const log = s.last_run_log === null ? [] : [`  its events: sudo cat ${s.last_run_log}`];
  if (run === null) return log.length === 0 ? [] : ['Last change: (not recorded)', ...log];
  const versions =
    run.from !== null && run.version !== null
      ? ` ${run.from} → ${run.version}`
      : run.version === null
        ? ''
        : ` of ${run.version}`;
  const when = run.at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  return [`Last change: ${when}, ${run.run}${versions} (${run.outcome})`, ...log];
}
