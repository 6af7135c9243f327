// How the executable carries its program (issue #41; docs/single-executable.md): the bundle
// (src/cli/entry.ts), already wrapped as a CommonJS module's function, and V8's code cache for
// it are two assets of the single executable, and its small main (src/cli/executable-main.ts)
// compiles the one with the other. The build makes the cache from this very asset
// (scripts/code-cache-warm.ts): the cache is right only for the source it was made from, and
// V8 checks little more than the source's length.

export const BUNDLE_ASSET = 'oac-node.cjs';
export const CODE_CACHE_ASSET = 'oac-node.code-cache';

/** The bundle as a CommonJS module's function, as Node's own loader wraps a file: written so by
 *  the build, so that no start pays for joining 1.5 MB of text again. */
export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

export type BundleFunction = (
  exports: object,
  require: (id: string) => unknown,
  module: object,
  filename: string,
  dirname: string,
) => void;

/** Runs the compiled bundle as the executable does: its own module object, the executable's
 *  path as its file name, and `require` as given (in the executable, Node's own modules only:
 *  docs/single-executable.md, pitfall 6). */
export function runBundleFunction(
  bundle: BundleFunction,
  require: (id: string) => unknown,
  filename: string,
  dirname: string,
): void {
  const bundleModule = { exports: {} };
  bundle(bundleModule.exports, require, bundleModule, filename, dirname);
}
