// How to start this program again as another account: the single executable runs itself; a
// development run (tsx) runs node with the same loader and script.
import { isSea } from 'node:sea';

export function selfCommand(args: string[]): { command: string; args: string[] } {
  if (isSea()) return { command: process.execPath, args };
  const script = process.argv[1];
  if (script === undefined) throw new Error('cannot tell which script is running');
  return { command: process.execPath, args: [...process.execArgv, script, ...args] };
}
