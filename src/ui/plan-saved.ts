// The line after a saved plan (DECL-05): where it is, and the command that applies it: this very
// executable (no `oac-node` is on PATH, and `apply` must run the installer that made the plan,
// whose SHA-256 the plan holds), each word quoted for a POSIX shell so that the line can be
// copied as it is (a path with a space or a `$` stays one word), and escaped like every line
// (SEC-09).
import { printable } from './printable.ts';

export function planSavedLine(path: string, executable: string = process.execPath): string {
  const command = `sudo ${shellWord(executable)} apply ${shellWord(path)}`;
  return `${printable(`Plan saved to ${path}; apply it with: ${command}`)}\n`;
}

function shellWord(text: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
