// What must happen even when the operator forces the installer to exit (a second Ctrl-C, which
// ends the process at once: src/cli/interrupt.ts). Only quick, synchronous-enough work belongs
// here: starting a detached command that outlives this process.
import { spawn } from 'node:child_process';
import { TOOL_PATH } from './tool-path.ts';

const hooks = new Set<() => void>();

/** Runs `hook` if the process is forced to exit before the returned function is called. */
export function beforeForcedExit(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

export function runForcedExitHooks(): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // A hook that fails must not keep the others from running.
    }
  }
}

/** `systemctl start --no-block UNIT` in its own session, left running as this process exits. */
export function startUnitDetached(unit: string): void {
  const child = spawn('systemctl', ['start', '--no-block', unit], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: TOOL_PATH, LANG: 'C' },
  });
  child.on('error', () => undefined);
  child.unref();
}
