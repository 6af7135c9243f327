// `npm run build`, one step (issue #41): the wrapped bundle run once under this machine's Node,
// as the executable's main runs it (src/cli/executable-main.ts: the same asset, file name and
// directory, a `require` of Node's own modules only), with the command line given after the
// paths; V8's code cache for it, written when the process ends, then holds every function that
// run compiled. Built into a CommonJS file and run by scripts/build.ts with the very Node binary
// the executable is made from: V8 refuses a cache from another, or one made after V8's flags
// changed (src/net/download-memory.ts sets some at run time): that is refused here, not shipped.
// Usage: node code-cache-warm.cjs WRAPPED-BUNDLE CACHE-OUT EXECUTABLE ARGS...
import { readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';
import { BUNDLE_ASSET, runBundleFunction, type BundleFunction } from '../src/cli/bundle-code.ts';

const [bundlePath, cachePath, executable, ...args] = process.argv.slice(2);
if (bundlePath === undefined || cachePath === undefined || executable === undefined) {
  process.stderr.write('usage: code-cache-warm WRAPPED-BUNDLE CACHE-OUT EXECUTABLE ARGS...\n');
  process.exit(64);
}
const script = new Script(readFileSync(bundlePath, 'utf8'), { filename: BUNDLE_ASSET });
const tag = cachedDataVersionTag();
process.on('exit', () => {
  if (cachedDataVersionTag() !== tag) {
    process.stderr.write("V8's flags changed during the run: its code cache would be refused\n");
    process.exitCode = 70;
    return;
  }
  writeFileSync(cachePath, script.createCachedData());
});
/** As in the executable: Node's own modules only (docs/single-executable.md, pitfall 6). */
function builtinOnly(id: string): unknown {
  if (!isBuiltin(id)) throw new Error(`the bundle asked for ${id}, which is not built into Node`);
  return process.getBuiltinModule(id) as unknown;
}
// The bundle reads its command line from process.argv, as in the executable.
process.argv = [executable, executable, ...args];
const bundle = script.runInThisContext() as BundleFunction;
runBundleFunction(bundle, builtinOnly, executable, dirname(executable));
