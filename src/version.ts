// The program's version. Kept equal to package.json's by test/unit/version.test.ts; a constant
// rather than a package.json read because the single executable has no package.json beside it
// (docs/single-executable.md pitfall 7).
declare const OAC_BUILT_VERSION: string | undefined;

/** The package's version; a build may stamp another (`npm run build -- --version 0.2.0`, UPG-01:
 *  the tests' second release), defined into the executable at build time, never read from the
 *  environment at run time. */
export const VERSION: string = typeof OAC_BUILT_VERSION === 'string' ? OAC_BUILT_VERSION : '0.1.0';
export const PROGRAM = 'oac-node';
/** The --json contract's format (docs/automation.md; src/cli/json-contract.ts). */
export const JSON_FORMAT = 1;

declare const OAC_BUILT_COMMIT: string | null | undefined;
declare const OAC_BUILT_TEST_HOOKS: boolean | undefined;
declare const OAC_BUILT_FAULT: string | undefined;

/** What made this program (`oac-node version`): the built executable or the sources under tsx,
 *  the commit it was built from, whether it is a test build, and whether V8 took its code
 *  cache. */
export function buildOf(): {
  kind: 'release' | 'test' | 'sources';
  commit: string | null;
  codeCache: CodeCacheState;
} {
  const codeCache = codeCacheState();
  if (typeof OAC_BUILT_COMMIT === 'undefined') return { kind: 'sources', commit: null, codeCache };
  const test =
    (typeof OAC_BUILT_TEST_HOOKS === 'boolean' && OAC_BUILT_TEST_HOOKS) ||
    typeof OAC_BUILT_FAULT === 'string';
  return { kind: test ? 'test' : 'release', commit: OAC_BUILT_COMMIT, codeCache };
}

const VERSION_FORM = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})(?:-([0-9A-Za-z.-]{1,40}))?$/;

/** Whether `value` is a version this program writes (major.minor.patch, an optional
 *  pre-release). */
export function isVersion(value: string): boolean {
  return VERSION_FORM.test(value);
}

/** Semantic versions' order (semver.org §11, pre-release identifiers compared in turn, numeric
 *  ones as numbers): below 0, 0 or above 0; undefined when either is not a version. */
export function compareVersions(a: string, b: string): number | undefined {
  const x = VERSION_FORM.exec(a);
  const y = VERSION_FORM.exec(b);
  if (x === null || y === null) return undefined;
  for (const i of [1, 2, 3]) {
    const d = Number(x[i]) - Number(y[i]);
    if (d !== 0) return Math.sign(d);
  }
  return comparePreRelease(x[4], y[4]);
}

function comparePreRelease(a: string | undefined, b: string | undefined): number {
  // A release is above its own pre-releases.
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const xs = a.split('.');
  const ys = b.split('.');
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const d = compareIdentifier(xs[i] ?? '', ys[i] ?? '');
    if (d !== 0) return d;
  }
  return Math.sign(xs.length - ys.length);
}

function compareIdentifier(a: string, b: string): number {
  const numeric = (v: string) => /^\d+$/.test(v);
  if (numeric(a) && numeric(b)) return Math.sign(Number(a) - Number(b));
  if (numeric(a) !== numeric(b)) return numeric(a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether V8 took the code cache: `oac-node version` says it (a build whose cache V8 refuses
 *  still works, only slower, so nothing else would show it). `none`: no cache was offered, as
 *  under tsx. */
export type CodeCacheState = 'accepted' | 'refused' | 'none';
// A global, not a module variable: this module is in the executable twice, once in its small
// main (src/cli/executable-main.ts, which notes the state) and once in the bundle it compiles
// (which reads it for `oac-node version`).
const CODE_CACHE_STATE = Symbol.for('oac-node.code-cache');

/** Called by the executable's main once V8 has taken or refused the bundle's cache. */
export function noteCodeCache(state: CodeCacheState): void {
  (globalThis as Record<symbol, unknown>)[CODE_CACHE_STATE] = state;
}

/** What noteCodeCache noted in this process; `none` when nothing was. */
export function codeCacheState(): CodeCacheState {
  const state = (globalThis as Record<symbol, unknown>)[CODE_CACHE_STATE];
  return state === 'accepted' || state === 'refused' ? state : 'none';
}
