// The e2e tier's host snapshot, for the VM of scripts/vm-idempotence.sh: the VM runs the very
// script the e2e hosts run, and this machine compares the two outputs with the e2e's own diff.
//
//   tsx scripts/vm/snapshot.ts script              # print the snapshot script (sh, run as root)
//   tsx scripts/vm/snapshot.ts diff BEFORE AFTER   # compare two outputs of it
//
// `diff` prints one line per difference and exits 0 when only the Runtime image differs (the
// uninstall keeps it on purpose, as test/e2e/uninstall.test.ts allows), 1 otherwise.
import { readFileSync } from 'node:fs';
import {
  beyondKeptImage,
  diffSnapshots,
  parseSnapshot,
  snapshotScript,
} from '../../test/e2e/harness/snapshot.ts';

const [command, before, after] = process.argv.slice(2);
if (command === 'script') {
  process.stdout.write(snapshotScript());
} else if (command === 'diff' && before !== undefined && after !== undefined) {
  const differences = diffSnapshots(
    parseSnapshot(readFileSync(before, 'utf8')),
    parseSnapshot(readFileSync(after, 'utf8')),
  );
  for (const line of differences) console.log(line);
  process.exitCode = beyondKeptImage(differences).length === 0 ? 0 : 1;
} else {
  console.error('usage: tsx scripts/vm/snapshot.ts script | diff BEFORE AFTER');
  process.exitCode = 64;
}
