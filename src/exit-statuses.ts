// Every exit status of oac-node and of the pasted line, in one table (issue #39 item 3): what
// a script may rely on (FLEET-02). docs/messages.md and docs/automation.md carry it as
// generated text (npm run docs:exit, scripts/exit-table.ts), and each command's --help prints
// its own rows (src/cli/exit-help.ts); test/unit/exit-statuses.test.ts fails when either
// differs from this table.
import { EXIT, LINE_EXIT } from './errors.ts';

/** Who can end with a status: a command, or the pasted line itself (before any command runs). */
export type ExitSource =
  | 'install'
  | 'uninstall'
  | 'register'
  | 'run'
  | 'status'
  | 'command'
  | 'bundle'
  | 'apply'
  | 'show-plan'
  | 'completion'
  | 'version'
  | 'diagnose'
  | 'the pasted line';

export interface ExitRow {
  status: number | string;
  /** The commands that end with it; 'every command' when all do. */
  who: readonly ExitSource[] | 'every command';
  meaning: string;
}

const COMMANDS: readonly ExitSource[] = [
  'install',
  'uninstall',
  'register',
  'run',
  'status',
  'command',
  'bundle',
  'apply',
  'show-plan',
  'completion',
  'version',
  'diagnose',
];

// Not apply: it applies a saved plan (never a dry run), so it never ends with 2.
const DRY_RUNS: readonly ExitSource[] = ['install', 'uninstall', 'show-plan'];
const LINE: readonly ExitSource[] = ['the pasted line'];

export const EXIT_TABLE: readonly ExitRow[] = [
  {
    status: EXIT.ok,
    who: COMMANDS.filter((c) => c !== 'status'),
    meaning: 'done; with --dry-run or --plan-out, and show-plan: nothing would change',
  },
  {
    status: EXIT.ok,
    who: ['status'],
    meaning: 'all well: the host matches its record and Core has the node connected and ready',
  },
  {
    status: EXIT.failure,
    who: 'every command',
    meaning:
      'failed: one line names what to fix (several under "N problems stop this run"); with --json the last event is error',
  },
  {
    status: EXIT.changesPending,
    who: DRY_RUNS,
    meaning: '--dry-run, --plan-out or show-plan: something would change, and only that',
  },
  {
    status: EXIT.changesPending,
    who: ['status'],
    meaning: 'the host drifted from its record: a rerun of the install command repairs it',
  },
  {
    status: EXIT.planStale,
    who: ['apply'],
    meaning:
      'the saved plan is stale (the host, the record, Core, the release or the installer moved since it was made, or it was applied): nothing was changed',
  },
  {
    status: EXIT.nothingInstalled,
    who: ['status', 'uninstall', 'diagnose'],
    meaning:
      'no record: status of an installation ID this host does not record, or no --installation-id on a host that records none',
  },
  {
    status: EXIT.notChecked,
    who: ['status'],
    meaning:
      'the host matches its record, but something could not be checked: Core (unreachable, or its answer unusable) or the node half (the node not registered, Docker not answering)',
  },
  {
    status: EXIT.notReady,
    who: ['status'],
    meaning:
      'Core removed the node, or has it disconnected or not ready while the host matches its record',
  },
  {
    status: EXIT.usage,
    who: 'every command',
    meaning: 'bad command line (EX_USAGE): the line names the option to fix; nothing was done',
  },
  {
    status: LINE_EXIT.checksumMismatch,
    who: LINE,
    meaning: 'the downloaded installer is not the one the line names (its SHA-256 differs)',
  },
  {
    status: LINE_EXIT.bundleUnreadable,
    who: LINE,
    meaning: 'the bundle named by the line cannot be read',
  },
  {
    status: LINE_EXIT.unsupportedHost,
    who: LINE,
    meaning: 'not Linux x86-64, or a tool the line needs is missing (named)',
  },
  {
    status: LINE_EXIT.cannotWrite,
    who: LINE,
    meaning: '~/.oac/node-bootstrap cannot be made or used, or the installer cannot be unpacked',
  },
  {
    status: LINE_EXIT.downloadFailed,
    who: LINE,
    meaning:
      'the download failed three times, or another oac-node command held the bootstrap lock too long',
  },
  {
    status: LINE_EXIT.consoleRefused,
    who: LINE,
    meaning: 'the console answered with a status no retry can fix (the line names it)',
  },
  {
    status: EXIT.removed,
    who: ['run'],
    meaning:
      'Core no longer accepts this node (removed or retired): systemd does not restart it (RestartPreventExitStatus=78)',
  },
  {
    status: EXIT.otherHost,
    who: ['install', 'uninstall', 'register', 'run', 'status'],
    meaning:
      "the node was registered on another host: this one is a copy (another machine ID); nothing was changed and the node's credential was not used (status and the line name the fix)",
  },
  {
    status: '128+N',
    who: ['install', 'uninstall', 'apply'],
    meaning:
      'stopped by signal N (130: Ctrl-C, 143: SIGTERM, 129: the terminal closed) at a step boundary: run the command again to continue',
  },
];

/** The rows that concern one command, in the table's order. */
export function exitRowsOf(who: ExitSource): ExitRow[] {
  return EXIT_TABLE.filter((row) => row.who === 'every command' || row.who.includes(who));
}

/** The table as Markdown (docs/messages.md, docs/automation.md). */
export function exitTableMarkdown(): string {
  const rows = EXIT_TABLE.map((row) => {
    const who = row.who === 'every command' ? row.who : whoText(row.who);
    return [String(row.status), who, row.meaning];
  });
  return markdownTable(['status', 'who', 'meaning'], rows);
}

/** "every command but status" where that is shorter than the list. */
function whoText(who: readonly ExitSource[]): string {
  const missing = COMMANDS.filter((c) => !who.includes(c));
  return missing.length <= 2 && who.length > 2
    ? `every command but ${missing.join(' and ')}`
    : who.join(', ');
}

function markdownTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
