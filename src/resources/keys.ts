// The journal's keys of an installation's resources (DECL-01): stable across releases, since a
// journal written by one release is read by the next.
import { NODE_USER } from '../layout.ts';

export const KEYS = {
  account: `account:${NODE_USER}`,
  membership: (group: string) => `group-membership:${group}`,
  home: 'directory:home',
  programRoot: 'directory:program-root',
  programDir: 'directory:program',
  program: 'program',
  /** UPG-02: the program an upgrade replaced, kept until the new one is ready. */
  previousProgram: 'program-previous',
  /** UPG-02: the step that drops the kept program, or puts it back. */
  upgradeRollback: 'upgrade-rollback',
  /** UNI-02: the installation's record, an uninstall's last step. */
  record: 'record',
  pathCommand: 'path-command',
  /** Issue #39: the manual page oac-node(1), and its directory when the host lacks it. */
  manDir: 'directory:man',
  manPage: 'man-page',
  nodeDirs: ['directory:.oac', 'directory:.oac/nodes'] as const,
  state: 'state',
  network: 'network',
  store: 'store',
  node: 'node',
  envFile: 'proxy-settings',
  unit: 'unit',
  service: 'service',
} as const;
