// A real terminal for e2e tests (OPS-01, OPS-03): tmux on this machine, on a socket of its own,
// running one command inside the throwaway host (nsenter into all its namespaces, as
// host.exec does). The test reads the screen (capture-pane) and types (send-keys, Ctrl-C).
// Stopped with kill-server on that socket: nothing of another tmux is touched.
import { execFileSync } from 'node:child_process';
import type { E2eHost } from '../harness/host.ts';
import { waitUntil } from '../harness/wait.ts';

const ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
let sessions = 0;

export interface Terminal {
  /** The visible screen, trailing blanks trimmed. */
  screen(): string;
  /** Keys as tmux names them: `C-c`, `Enter`. */
  keys(...keys: string[]): void;
  /** Polls the screen until it matches, or fails with the last screen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** `script` runs under bash in the host, as root, in a 110×32 terminal. */
export function openTerminal(host: E2eHost, script: string): Terminal {
  const socket = `oac-e2e-${process.pid}-${++sessions}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const inside = ['nsenter', '-t', String(host.leaderPid), '-a'];
  inside.push(
    'env',
    '-i',
    `PATH=${ROOT_PATH}`,
    'HOME=/root',
    'TERM=xterm-256color',
    'LANG=C.UTF-8',
  );
  inside.push('bash', '-c', script);
  // nsenter (which waits for its child in the host's PID namespace) and the shells ignore
  // Ctrl-C, as an operator's interactive shell does; the installer resets its signals at start
  // (Node does) and is the one to answer it.
  const ignoringInt = ['sh', '-c', 'trap "" INT; exec "$@"', 'sh', ...inside];
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '110', '-y', '32', ...ignoringInt);
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  const screen = () =>
    tmux('capture-pane', '-p', '-J')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd();
  return {
    screen,
    keys: (...keys) => void tmux('send-keys', ...keys),
    waitFor: (pattern, timeoutMs = 120_000) =>
      waitUntil(`the screen to match ${pattern}`, screen, {
        done: (now) => pattern.test(now),
        timeoutMs,
        intervalMs: 200,
      }),
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}
