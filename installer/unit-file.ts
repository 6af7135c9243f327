// The node's systemd unit (HOST-03): root-owned, User=oac-node, restarts every 5 s while Core is
// unreachable, stops for good on 78, proxy settings only through the root-only env file
// (HOST-06), and the sandboxing the node can live with.
import { NODE_HOME, NODE_USER, envFilePath, stateDir } from './context.ts';
import { programPath } from './program.ts';
import { PROXY_VARIABLES } from '../src/net/proxy-env.ts';

export interface UnitInput {
  installationId: string;
  coreUrl: string;
  provider: 'docker' | 'microsandbox';
  /** microsandbox's shared checkpoint store (HOST-11): the service must be able to write it. */
  checkpointRoot?: string;
}

export function providerFilePath(installationId: string): string {
  return `${stateDir(installationId)}/provider.json`;
}

export function renderUnit({
  installationId,
  coreUrl,
  provider,
  checkpointRoot,
}: UnitInput): string {
  const state = stateDir(installationId);
  // systemd turns `$$` into `$` and expands `%` specifiers: none of these values may hold them
  // (installation IDs are [A-Za-z0-9._-], paths are ours).
  return [
    '[Unit]',
    `Description=oac-node: sandbox node of Core ${coreUrl} (installation ${installationId})`,
    'After=network-online.target' + (provider === 'docker' ? ' docker.service' : ''),
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${NODE_USER}`,
    `EnvironmentFile=-${envFilePath(installationId)}`,
    `ExecStart=${programPath(installationId)} run --config ${providerFilePath(installationId)} --state-dir ${state}`,
    'Restart=on-failure',
    'RestartSec=5',
    // 78: Core no longer accepts the node (removed, or retired by a reset): never restart.
    'RestartPreventExitStatus=78',
    'UMask=0077',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${NODE_HOME}${checkpointRoot === undefined ? '' : ` ${checkpointRoot}`}`,
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectControlGroups=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'LockPersonality=yes',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** The env file: the six proxy variables of the latest run, nothing else (HOST-06). */
export function renderEnvFile(proxyEnv: Record<string, string>): string | undefined {
  const lines = PROXY_VARIABLES.filter((n) => proxyEnv[n] !== undefined).map(
    (n) => `${n}=${quoteEnvValue(proxyEnv[n] ?? '')}`,
  );
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}

// systemd's EnvironmentFile: double quotes, with backslash escapes for `"`, `\` and `$`? It
// takes the value literally inside double quotes except for backslash escapes.
function quoteEnvValue(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
