// Each command's --help ends with its own exit statuses, from the one table (src/exit-statuses.ts,
// issue #39 item 3), under the guides every help names.
import { exitRowsOf, type ExitSource } from '../exit-statuses.ts';

const WIDTH = 98;
const INDENT = 9;

/** "Exit status:" and one row per status, the meaning wrapped under itself. */
export function exitHelp(command: ExitSource): string {
  const rows = exitRowsOf(command).map((row) => {
    const lines = wrap(row.meaning, WIDTH - INDENT);
    const first = `  ${String(row.status).padEnd(INDENT - 2)}${lines[0] ?? ''}`;
    return [first, ...lines.slice(1).map((l) => `${' '.repeat(INDENT)}${l}`)].join('\n');
  });
  return ['Exit status:', ...rows].join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
