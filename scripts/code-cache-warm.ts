// `npm run build`, one step (issue #41): the bundle run once under this machine's Node, as the
// executable's main runs it (src/cli/executable-main.ts, the same wrapping), with the command
// line given after the two paths; V8's code cache for it, written when the process ends, then
// holds every function that run compiled. Built into a CommonJS file and run by scripts/build.ts
// with the very Node binary the executable is made from: V8 refuses a cache from another.
// Usage: node code-cache-warm.cjs BUNDLE CACHE-OUT ARGS...
import { readFileSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { BUNDLE_ASSET, wrapBundle, type BundleFunction } from '../src/cli/bundle-code.ts';

const [bundlePath, cachePath, ...args] = process.argv.slice(2);
if (bundlePath === undefined || cachePath === undefined) {
  process.stderr.write('usage: code-cache-warm BUNDLE CACHE-OUT ARGS...\n');
  process.exit(64);
}
const script = new Script(wrapBundle(readFileSync(bundlePath, 'latin1')), {
  filename: BUNDLE_ASSET,
});
process.on('exit', () => writeFileSync(cachePath, script.createCachedData()));
// The bundle reads its command line from process.argv, as in the executable.
process.argv = [process.execPath, process.execPath, ...args];
const bundle = script.runInThisContext() as BundleFunction;
const bundleModule = { exports: {} };
bundle(bundleModule.exports, require, bundleModule, bundlePath, '/');
