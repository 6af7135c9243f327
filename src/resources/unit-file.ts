// The node's systemd unit (HOST-03): root-owned, User=oac-node, restarts every 5 s while Core is
// unreachable, stops for good on 78, proxy settings only through the root-only env file
// (HOST-06; its format: records/env-file.ts), and the sandboxing the node can live with (SEC-08,
// ./unit-sandbox.ts). Pure: part of the desired state.
import { NODE_HOME, NODE_USER, WANTED_BY, type Layout } from '../layout.ts';
import { sandboxLines } from './unit-sandbox.ts';

export interface UnitInput {
  layout: Layout;
  coreUrl: string;
  provider: 'docker' | 'microsandbox';
  /** microsandbox's shared checkpoint store (HOST-11): the service must be able to write it. */
  checkpointRoot?: string;
}

export function renderUnit({ layout, coreUrl, provider, checkpointRoot }: UnitInput): string {
  // systemd turns `$$` into `$` and expands `%` specifiers: none of these values may hold them
  // (installation IDs are parsed by src/layout.ts, --checkpoint-root by the CLI, paths are ours).
  return [
    '[Unit]',
    `Description=oac-node: sandbox node of Core ${coreUrl} (installation ${layout.id})`,
    // Issue #39: `systemctl status` names the manual page the install puts beside the program;
    // as a file: `systemd-analyze verify` runs man(1) for a man: URL, which minimal hosts lack.
    'Documentation=file:/usr/local/share/man/man1/oac-node.1',
    'After=network-online.target' + (provider === 'docker' ? ' docker.service' : ''),
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${NODE_USER}`,
    `EnvironmentFile=-${layout.envFile}`,
    `ExecStart=${layout.program} run --config ${layout.providerFile} --state-dir ${layout.stateDir}`,
    'Restart=on-failure',
    'RestartSec=5',
    // 78: Core no longer accepts the node (removed, or retired by a reset): never restart.
    'RestartPreventExitStatus=78',
    'UMask=0077',
    `ReadWritePaths=${NODE_HOME}${checkpointRoot === undefined ? '' : ` ${checkpointRoot}`}`,
    ...sandboxLines(provider),
    '',
    '[Install]',
    `WantedBy=${WANTED_BY}`,
    '',
  ].join('\n');
}

/** Whether a unit file runs this installation's program: the proof, without a record, that
 *  the unit is ours (uninstall of a host whose journal is gone). */
export function unitRunsProgram(text: string, layout: Layout): boolean {
  return text.includes(`\nExecStart=${layout.program} run `);
}
