// SEC-07: variables that weaken the executable are ignored. Node reads most of them itself at
// start, before any of our code (NODE_OPTIONS flags such as --use-openssl-ca or
// --tls-cipher-list, OPENSSL_CONF, NODE_EXTRA_CA_CERTS, NODE_DEBUG's protocol dumps), so the
// only way to ignore them is to start again without them: the same executable, the same
// arguments and descriptors (the token's pipe included), the environment minus these names.
// NODE_TLS_REJECT_UNAUTHORIZED is moot besides (every agent sets rejectUnauthorized itself).
// What cannot be undone: code that NODE_OPTIONS=--require ran in this first process, and the
// V8 coverage file NODE_V8_COVERAGE makes it write at exit (it never reads the token). Whoever
// controls root's environment controls root; the one-line command starts us with `env -i`.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { isSea } from 'node:sea';
import { weakeningVariables } from './clean-env-names.ts';
import { traceDescriptors } from './journal-points.ts';

/** Set in the restarted process's environment: a process that sees it and still finds a
 *  weakening variable refuses to run (and never restarts again: no loop). Setting it by hand
 *  gains nothing: the variables are then refused, not honoured. */
export const RESTARTED_MARK = 'OAC_NODE_RESTARTED';

/** Runs this command again without the weakening variables; resolves to its exit status. */
export function restartWithoutWeakening(): Promise<number> {
  if (process.env[RESTARTED_MARK] !== undefined) {
    const names = weakeningVariables(process.env).join(', ');
    process.stderr.write(`oac-node: could not clear ${names} from the environment; unset them\n`);
    return Promise.resolve(70); // EX_SOFTWARE
  }
  // From process.env itself: Node copies NODE_V8_COVERAGE from it into every child's
  // environment, even one given explicitly, and the child would restart again, forever.
  for (const name of weakeningVariables(process.env)) delete process.env[name];
  const env = { ...process.env, [RESTARTED_MARK]: '1' };
  const args = isSea() ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  // 0-2, and a test build's trace descriptor (src/host/journal-points.ts): nothing else.
  const stdio = ['inherit', 'inherit', 'inherit', ...traceDescriptors()] as const;
  const child = spawn(process.execPath, args, { env, stdio: [...stdio] });
  // Ctrl-C and Ctrl-\ reach the child from the terminal itself (one process group): this
  // process only waits. A signal sent to this PID alone is passed on.
  const ignore = () => undefined;
  const pass = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', ignore).on('SIGQUIT', ignore);
  process.on('SIGTERM', pass).on('SIGHUP', pass);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`oac-node: cannot start ${process.execPath} again: ${error.message}\n`);
      resolve(70); // EX_SOFTWARE: our own executable could not start
    });
    child.once('exit', (code, signal) => {
      if (signal === null) return resolve(code ?? 1);
      process.removeAllListeners(signal);
      process.kill(process.pid, signal); // die the same way the child did
      // Should the signal not end this process (SIGINT and SIGQUIT are ignored here): the
      // shell's convention for a child killed by a signal.
      resolve(128 + (constants.signals[signal] ?? 0));
    });
  });
}
