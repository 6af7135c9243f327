// The process the host tier's crash matrix kills (test/host/crash-root.test.ts):
// `crash-root-child.ts install|uninstall <root> <program>` runs root's half of an install, or the
// uninstall, on a scratch --root tree, with whatever OAC_NODE_TEST_KILL_AT and
// OAC_NODE_TEST_JOURNAL_TRACE_FD its environment holds (src/host/journal-points.ts). Run bundled
// (test/helpers/crash-points.ts), or by hand with `node --import tsx`.
import { installRootHalf, uninstallRootHalf } from './root-half.ts';

const [command, root, program] = process.argv.slice(2);
if (root === undefined || program === undefined)
  throw new Error('usage: install|uninstall ROOT PROGRAM');
if (command === 'install') await installRootHalf(root, program);
else if (command === 'uninstall') await uninstallRootHalf(root);
else throw new Error(`unknown command ${command}`);
