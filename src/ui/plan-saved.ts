// The line after a saved plan (DECL-05): where it is, and the command that applies it: this very
// executable (no `oac-node` is on PATH, and `apply` must run the installer that made the plan,
// whose SHA-256 the plan holds), each word quoted for a POSIX shell so that the line can be
// copied as it is (a path with a space or a `$` stays one word), and escaped like every line
// (SEC-09). Issue #39 item 10: the plan's path is absolute (a relative --plan-out resolved
// against the working directory, where it was written), so the command runs from any
// directory; and it has `sudo` as the other hints do: none in a root shell
// (src/ui/operator-shell.ts).
import { resolve } from 'node:path';
import { asRoot } from './operator-shell.ts';
import { printable } from './printable.ts';

export function planSavedLine(
  path: string,
  executable: string = process.execPath,
  cwd: string = process.cwd(),
): string {
  const plan = resolve(cwd, path);
  const command = asRoot(`${shellWord(executable)} apply ${shellWord(plan)}`);
  return `${printable(`Plan saved to ${plan}; apply it with: ${command}`)}\n`;
}

function shellWord(text: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
