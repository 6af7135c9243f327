// A command whose capability has not landed yet says so and exits 2 (issue #2: no fake
// behaviour). Each command module names the issue that builds it.
import { EXIT, OacError } from '../../errors.ts';
import { message } from '../../messages.ts';

export function notBuilt(command: string, issue: number): never {
  throw new OacError('not_built', message('not_built', { command, issue }), {
    exitCode: EXIT.notBuilt,
  });
}
