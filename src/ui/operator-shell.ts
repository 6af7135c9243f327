// The guide (l.101): "In a root shell, omit sudo." Hints and summaries name commands the way
// the operator types them: with sudo after the pasted line ran through sudo (the line passes
// --sudo then) or after `sudo oac-node …` (sudo sets SUDO_USER), without it in a root shell.
// Only `sudo` before a command word is dropped: `sudo -u oac-node …` (acting as another
// account) and prose that mentions sudo stay as they are.
let rootShell = false;

const COMMANDS = [
  'systemctl',
  'journalctl',
  'docker',
  'oac-node',
  'pgrep',
  'userdel',
  'ls',
  'rm',
  'cat',
];
const SUDO_BEFORE_COMMAND = new RegExp(`\\bsudo (?=(?:${COMMANDS.join('|')}) )`, 'g');

/** Decided once at start: root, and neither sudo's variable nor the line's --sudo. */
export function decideOperatorShell(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  uid = process.getuid?.(),
): void {
  rootShell = uid === 0 && env.SUDO_USER === undefined && !args.includes('--sudo');
}

/** The text as this operator would type its commands. */
export function forOperator(text: string): string {
  return rootShell ? text.replace(SUDO_BEFORE_COMMAND, '') : text;
}

/** A command that needs root, as this operator types it: after `sudo`, or alone in a root
 *  shell. For a command whose first word is no name forOperator knows (the installer's own
 *  path, as the line after a saved plan names it: src/ui/plan-saved.ts). */
export function asRoot(command: string): string {
  return rootShell ? command : `sudo ${command}`;
}
