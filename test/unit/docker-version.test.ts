// HOST-12: Docker older than the oldest tested engine (Debian 11's docker.io, 20.10) is refused
// in one line that names the supported hosts. No Docker that old is reachable from this machine
// (Debian's archive no longer serves it), so the check's rule is kept here, row by row, and the
// matrix (test/e2e/distributions.test.ts) installs on the oldest engine that passes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDockerVersion, DOCKER_MINIMUM } from '../../installer/preflight-checks.ts';
import { isOacError } from '../../src/errors.ts';

const refusedLine = (version: string): string =>
  `Docker ${version} on this host is older than ${DOCKER_MINIMUM}, the oldest the node supports`;

/** The error's message and hint, or undefined when the version passes. */
function verdict(serverVersion: string | undefined): { message: string; hint: string } | undefined {
  try {
    checkDockerVersion(serverVersion);
    return undefined;
  } catch (error) {
    assert.ok(isOacError(error), String(error));
    return { message: error.message, hint: error.hint ?? '' };
  }
}

test('HOST-12 Docker from 20.10 on passes: Debian 11, 12 and 13 ship 20.10.5, 20.10.24 and 26.1.5', () => {
  for (const version of [
    '20.10.0',
    '20.10.5+dfsg1',
    '20.10.24+dfsg1',
    '26.1.5+dfsg1',
    '27.0.3',
    '100.0',
  ]) {
    assert.equal(verdict(version), undefined, version);
  }
});

test('HOST-12 Docker older than 20.10 is refused in one line naming the version, the minimum and the supported hosts', () => {
  for (const [version, shown] of [
    ['19.03.15', '19.03.15'],
    ['18.09.1+dfsg1', '18.09.1'],
    ['1.13.1', '1.13.1'],
    ['20.9', '20.9'],
    // Only the numbers the daemon wrote are shown, never the rest of its string.
    ['19.03.15\u001b[2J\nfake line', '19.03.15'],
  ] as const) {
    const result = verdict(version);
    assert.equal(result?.message, refusedLine(shown), version);
    assert.match(result?.hint ?? '', /Debian 11, 12 and 13 on amd64/);
  }
});

test('HOST-12 a daemon that names no version of the usual form is not judged by it', () => {
  for (const version of [undefined, '', 'dev', 'master-dockerproject-2024-01-01', 'v26.1.5']) {
    assert.equal(verdict(version), undefined, String(version));
  }
});
