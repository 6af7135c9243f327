// OPS-01 (issue #39): every long command draws the same terminal screen. On a real terminal
// (tmux on this machine, on a socket of its own, stopped with kill-server on that socket), an
// uninstall and a bundle show listr2's rows as the install does: a row per group of steps, each
// ending with a tick and what it did; the bundle's rows are its files, then the bundle written.
// On a pipe the same runs print plain lines (the other host tests read them).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { installRootHalf, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot } from '../helpers/scratch-root.ts';
import { makeReleaseDir, startCore } from '../helpers/core.ts';

let sessions = 0;

/** Runs `argv` in a 110×40 terminal until it exits; the screen then, and its exit status. */
async function onTerminal(argv: string[]): Promise<{ screen: string; status: number }> {
  const socket = `oac-host-${process.pid}-${++sessions}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const script = `${quoted} </dev/null; echo "EXIT=$?"; sleep 600`;
  const env = [
    'env',
    '-i',
    'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
    'TERM=xterm-256color',
    'LANG=C.UTF-8',
  ];
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '110', '-y', '40', ...env, 'sh', '-c', script);
  try {
    for (let i = 0; i < 600; i++) {
      const screen = tmux('capture-pane', '-p', '-J')
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n')
        .trimEnd();
      const exit = /^EXIT=(\d+)$/m.exec(screen);
      if (exit !== null) return { screen, status: Number(exit[1]) };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no exit within a minute:\n${tmux('capture-pane', '-p')}`);
  } finally {
    tmux('kill-server');
  }
}

test('OPS-01 issue #39 the uninstall on a terminal: listr rows for each group, each ticked with what it removed', async () => {
  const exe = requireExecutable();
  const root = makeScratchRoot();
  try {
    await installRootHalf(root, programFor(root));
    const { screen, status } = await onTerminal([
      ...[exe, 'uninstall', '--installation-id', 'inst-1', '--root', root],
    ]);
    assert.equal(status, 0, screen);
    assert.match(screen, /^✔ removed +oac-node-inst-1\.service/m, screen);
    assert.match(screen, /^✔ removed +\/usr\/local\/lib\/oac-node$/m, screen);
    assert.match(screen, /^✔ removed +the record \/etc\/oac-node\/inst-1\.json$/m, screen);
    assert.ok((screen.match(/^✔ /gm) ?? []).length >= 6, screen);
    assert.match(screen, /^The node of installation inst-1 is removed from this host\.$/m);
  } finally {
    removeScratchRoot(root);
  }
});

test('OPS-01 issue #39 bundle on a terminal: a row per file, ticked once verified, then the bundle written', async () => {
  const exe = requireExecutable();
  const release = await makeReleaseDir();
  const core = await startCore(['--release-dir', release.dir]);
  const dir = mkdtempSync(join(tmpdir(), 'oac-bundle-screen-'));
  try {
    const out = join(dir, 'release.bundle');
    const { screen, status } = await onTerminal([
      ...[exe, 'bundle', '--console-url', core.console_url, '--release', release.release],
      ...['--out', out],
    ]);
    assert.equal(status, 0, screen);
    assert.match(screen, /^✔ created +oac-node-\S+\.gz, verified$/m, screen);
    assert.match(
      screen,
      new RegExp(`^✔ created +${out.replaceAll('.', '\\.')}, \\d+ entries$`, 'm'),
    );
    assert.match(screen, /^Bundle \S+: release \S+/m, 'then what to do with it');
  } finally {
    await core.stop();
    await release.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
