// The single executable's main script (scripts/build.ts): answers `--version` and `--help`
// before anything else is compiled, and otherwise runs the bundle (src/cli/entry.ts) from the
// executable's assets with the code cache the build made by running it once (issue #41). Node's
// own code cache for a main script holds only what compiling it compiles; this one also holds
// every function the parser ran, about a quarter of a command's start (bench/README.md). A
// cache V8 refuses (another V8, other flags) costs only time: the bundle compiles as it would
// without one. The cache is right because the build made it from this very asset; both are
// inside the executable whose SHA-256 the pasted line checks.
import { dirname } from 'node:path';
import { getRawAsset } from 'node:sea';
import { Script } from 'node:vm';
import {
  BUNDLE_ASSET,
  CODE_CACHE_ASSET,
  runBundleFunction,
  type BundleFunction,
} from './bundle-code.ts';
import { noteCodeCache } from '../version.ts';
import { quickAnswer, writeQuickAnswer } from './quick-answers.ts';

/** An asset's bytes, not copied: read only (Node's documentation: writing may crash). Node 20
 *  returns an ArrayBuffer; the string case exists only in @types/node's signature. */
function assetBytes(key: string): Buffer {
  const raw = getRawAsset(key);
  return typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.from(raw);
}

function runBundle(): void {
  const source = assetBytes(BUNDLE_ASSET).toString('utf8');
  const cachedData = assetBytes(CODE_CACHE_ASSET);
  const script = new Script(source, { filename: BUNDLE_ASSET, cachedData });
  noteCodeCache(script.cachedDataRejected === true ? 'refused' : 'accepted');
  const bundle = script.runInThisContext() as BundleFunction;
  runBundleFunction(bundle, require, process.execPath, dirname(process.execPath));
}

const quick = quickAnswer(process.argv.slice(2));
if (quick === undefined) runBundle();
else writeQuickAnswer(quick);
