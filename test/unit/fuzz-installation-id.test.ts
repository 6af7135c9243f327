// SEC-10, SEC-04 fuzzed (issue #26 item 2): the installation ID (src/layout.ts), from which every
// path derives. Any value (strings near the rule's edges, `.`/`..`, slashes, control characters,
// non-strings) is the ID itself or one usage line that echoes nothing; every accepted ID gives
// paths that stay one plain name inside their directories, and the journal's file name of an ID
// reads back as that ID (journalIds, how uninstall and status find installations).
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { EXIT } from '../../src/errors.ts';
import {
  INSTALLATION_ID_EMPTY,
  isInstallationId,
  journalIds,
  layout,
  parseInstallationId,
} from '../../src/layout.ts';
import { message } from '../../src/messages.ts';
import { ALNUM, charsOf, check, hostileString, mutatedText, outcome } from './fuzz-support.ts';

const valid = fc.tuple(charsOf(ALNUM, 1, 1), charsOf(`${ALNUM}._-`, 0, 63)).map(([a, b]) => a + b);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: valid },
  { weight: 3, arbitrary: valid.chain((id) => mutatedText(id)) },
  { weight: 1, arbitrary: charsOf(`${ALNUM}._-/`, 60, 70) },
  { weight: 1, arbitrary: fc.constantFrom('.', '..', '-x', '_x', 'a/..', '../a', 'a\n', ' a') },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);

const REFUSAL = message('installation_id_invalid');

test('SEC-10 SEC-04 any value is the installation ID or one usage line; every accepted ID stays inside its directories', () => {
  check(
    fc.property(value, (v) => {
      const read = outcome(() => parseInstallationId(v));
      if ('error' in read) {
        assert.equal(read.error.exitCode, EXIT.usage);
        assert.ok(!isInstallationId(v));
        // The same sentence for every value: nothing of what was typed is echoed.
        const sentences = [REFUSAL, '--installation-id is required', INSTALLATION_ID_EMPTY];
        assert.ok(sentences.includes(read.error.message));
        return;
      }
      const id = read.ok;
      assert.equal(id, v);
      assert.match(id, /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
      const paths = layout(id);
      for (const path of [
        paths.journal,
        paths.envFile,
        paths.programDir,
        paths.stateDir,
        paths.unitPath,
      ]) {
        // A path that normalising would change (`..`, `.`, `//`) is one an ID could steer.
        assert.equal(posix.normalize(path), path, path);
        assert.ok(posix.basename(path).includes(id), path);
      }
      assert.deepEqual(journalIds([posix.basename(paths.journal)]), [id]);
    }),
  );
});
