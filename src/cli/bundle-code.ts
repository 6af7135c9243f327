// How the executable carries its program (issue #41; docs/single-executable.md): the bundle
// (src/cli/entry.ts) and V8's code cache for it are two assets of the single executable, and
// its small main (src/cli/executable-main.ts) compiles the one with the other. The build makes
// the cache from this very wrapping (scripts/code-cache-warm.ts): V8 takes a cache only for the
// source it was made from.

export const BUNDLE_ASSET = 'oac-node.cjs';
export const CODE_CACHE_ASSET = 'oac-node.code-cache';

/** The bundle as a CommonJS module's function, as Node's own loader wraps a file. */
export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

export type BundleFunction = (
  exports: object,
  require: NodeJS.Require,
  module: object,
  filename: string,
  dirname: string,
) => void;
