// Lint rules. The boundary rules keep every side effect behind one door (docs/design.md "Host: the
// only door to the machine"): node:fs, execa and proper-lockfile only in src/host/, undici only
// in src/net/, ws only in the reference Core. Fixtures, tests, benchmarks and build scripts are
// harness code around the product and may touch the machine directly.
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const fsModules = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
const hostOnly = [
  ...fsModules.map((name) => ({ name, message: 'File access goes through the Host (src/host/).' })),
  { name: 'execa', message: 'Processes go through the Host (src/host/).' },
  { name: 'proper-lockfile', message: 'Locks go through the Host (src/host/).' },
  { name: 'child_process', message: 'Processes go through the Host (src/host/).' },
  { name: 'node:child_process', message: 'Processes go through the Host (src/host/).' },
];
const netOnly = [{ name: 'undici', message: 'HTTP goes through src/net/.' }];
const coreOnly = [
  { name: 'ws', message: 'ws belongs to the reference Core (fixtures/core/) only.' },
];

// The layers (docs/architecture.md), bottom up: each folder imports only
// those below it, so an upward import, and with it any circle between folders, fails
// `npm run lint` (test/unit/lint-layers.test.ts shows that it bites). The leaf modules at
// src/*.ts (errors, messages, layout, redact …) import no folder at all.
export const LAYERS = [
  ['src/host', 'host'],
  ['src/net', 'net'],
  ['src/bundle', 'bundle'],
  ['records', 'records'],
  ['src/core', 'core'], // the reconcile core: generic, nothing of the domain
  ['src/resources', 'resources'], // the resource kinds and root's and shared drivers
  ['src/node', 'node'], // the node account's library and the node half's drivers
  ['src/installation', 'installation'], // desired, plan, reconcile, uninstall, the node half
  ['src/agent', 'agent'], // the long-running node program
  ['src/ui', 'ui'],
  ['installer', 'installer'],
  ['uninstaller', 'uninstaller'],
  ['support', 'support'], // the support bundle (issue #40): reads what the others record
  ['src/cli', 'cli'],
];
const above = (...names) =>
  names.map((name) => ({
    group: [`**/${name}/**`],
    message: `Nothing imports upward into ${name}/ (the layers: docs/architecture.md).`,
  }));
/** What a folder may not import though it sits below it. */
const besides = (dir) =>
  dir === 'uninstaller' ? ['installer'] : dir === 'src/agent' ? ['installation'] : [];
const pathsOf = (dir) =>
  dir === 'src/host'
    ? [...netOnly, ...coreOnly]
    : dir === 'src/net'
      ? [...hostOnly, ...coreOnly]
      : [...hostOnly, ...netOnly, ...coreOnly];
// The reconcile core is generic: it imports no folder at all, below it or above, and of the leaf
// modules neither the layout (the installation's names) nor the message table (issue #38: its
// refusals carry codes, and the domain renders them): only the vocabulary of errors.
const coreOnlyLeaves = [
  ...LAYERS.map(([, name]) => name)
    .filter((name) => name !== 'core')
    .map((name) => ({
      group: [`**/${name}/**`],
      message: `The reconcile core imports no folder, ${name}/ included (docs/architecture.md).`,
    })),
  { group: ['**/layout.ts'], message: 'The reconcile core knows no installation (src/layout.ts).' },
  {
    group: ['**/messages.ts'],
    message: 'The reconcile core renders no message: its refusals carry codes (src/messages.ts).',
  },
];
const layers = [
  ...LAYERS.map(([dir], i) => ({
    files: [`${dir}/**/*.ts`],
    paths: pathsOf(dir),
    // The uninstaller never reaches into the installer either (issue #10), nor the node program
    // into the installation (issue #38: what it runs is the node library's), though each sits
    // above.
    patterns:
      dir === 'src/core'
        ? coreOnlyLeaves
        : above(...LAYERS.slice(i + 1).map(([, name]) => name), ...besides(dir)),
  })),
  {
    files: ['src/*.ts'],
    paths: [...hostOnly, ...netOnly, ...coreOnly],
    patterns: above(...LAYERS.map(([, name]) => name)),
  },
];

// Issue #38: what no-restricted-imports does not see, a dynamic `import('…')` and a type's
// `import('…')`, held to the same layers by a rule of our own: a relative specifier is resolved
// against the file, and a target in a folder above the file's (or, from the reconcile core, in
// any folder, or the layout) is refused. test/unit/lint-layers.test.ts shows that it bites.
const repoRoot = dirname(fileURLToPath(import.meta.url));
/** The layer of a repository path: its index in LAYERS, -1 for the leaf modules at src/*.ts,
 *  undefined for harness code (tests, fixtures, scripts), which no layer rule covers. */
function layerOf(path) {
  const i = LAYERS.findIndex(([dir]) => path.startsWith(`${dir}/`));
  if (i >= 0) return i;
  return /^src\/[^/]+\.ts$/.test(path) ? -1 : undefined;
}
function refusalOf(from, to) {
  const [mine, theirs] = [layerOf(from), layerOf(to)];
  if (mine === undefined || theirs === undefined) return undefined;
  const [, name] = LAYERS[theirs] ?? [];
  if (LAYERS[mine]?.[1] === 'core') {
    if (theirs === mine) return undefined;
    if (to === 'src/layout.ts') return 'The reconcile core knows no installation (src/layout.ts).';
    if (to === 'src/messages.ts')
      return 'The reconcile core renders no message: its refusals carry codes (src/messages.ts).';
    if (theirs >= 0)
      return `The reconcile core imports no folder, ${name}/ included (docs/architecture.md).`;
    return undefined;
  }
  if (besides(LAYERS[mine]?.[0]).includes(name))
    return `Nothing imports upward into ${name}/ (the layers: docs/architecture.md).`;
  if (theirs > mine)
    return `Nothing imports upward into ${name}/ (the layers: docs/architecture.md).`;
  return undefined;
}
/** A template literal's text when it has no expressions (a constant written with backquotes). */
const templateText = (node) =>
  node.expressions.length === 0 ? node.quasis[0]?.value.cooked : undefined;
const layerImports = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = relative(repoRoot, context.filename);
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = relative(repoRoot, resolve(dirname(context.filename), source));
      const message = refusalOf(from, to);
      if (message !== undefined) context.report({ node, message });
    };
    return {
      ImportExpression: (node) =>
        check(
          node,
          node.source.type === 'TemplateLiteral' ? templateText(node.source) : node.source.value,
        ),
      TSImportType: (node) => check(node, node.argument?.literal?.value),
    };
  },
};

// Issue #38: an operational failure (a tool that fails, a lock that cannot be taken) is a code of
// the message table with its hint, never "internal error (please report it)" with a stack.
// `new Error(` is left to what can only be a bug, in these files, each guard saying which; a new
// one elsewhere fails `npm run lint` (test/unit/lint-layers.test.ts shows it).
const bareErrorAllowed = [
  'installer/install.ts', // preflight learned what the plan needs (a bug if not)
  'installer/install-plan.ts', // the same: preflight learned what the plan needs
  'src/installation/previous-program.ts', // the plan keeps a recorded program only
  'src/installation/upgrade-rollback.ts', // an install that replaces the program waits for Core
  'src/resources/kind.ts', // a probe answers in its kind's shape
  'installer/one-liner.ts', // values were parsed before they are quoted
  'installer/preflight-findings.ts', // a stop comes after a finding
  'records/env-file.ts', // the key is ours, 64 hex digits
  'src/cli/install-output.ts', // a --plan-out dry run returns its plan
  'src/cli/uninstall-output.ts', // the same
  'src/cli/completion-script.ts', // the words are ours
  'src/cli/main.ts', // a command table entry without its code
  'src/resources/refusal-error.ts', // a refused plan has refusals
  'src/host/bundle-file.ts', // a bundle checked whole before it is read; the node half's fd
  'src/host/self.ts', // the running script is known
  'src/host/tar-header.ts', // names and sizes were checked by the manifest's schema
  'src/installation/node-half.ts', // the node step runs only in an install
  'src/installation/prepare.ts', // a test build's deliberate fault (src/built-fault.ts)
  'src/installation/reconcile.ts', // the node half makes what root cannot
  'src/net/connect-failure.ts', // a thrown non-Error wrapped for undici
  'src/net/download-stall.ts', // an abort reason, mapped to download_stalled by its caller
  'src/net/linked-abort.ts', // a thrown non-Error wrapped
  'src/net/pinned-connector.ts', // connector failures, mapped by src/net/core-errors.ts
  'src/node/reconcile.ts', // every node kind has its apply
  'src/resources/drivers/directory.ts', // the account is made before its home
  'src/resources/drivers/file.ts', // a file to write has content or a source
  'src/resources/drivers/unit.ts', // a unit to write has content
  'src/ui/listr-renderer.ts', // listr2's own signal that a task failed (the event says why)
];
const noBareError = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    return {
      // `Error(…)` without `new` builds the same error.
      'NewExpression, CallExpression'(node) {
        if (node.callee.type !== 'Identifier' || node.callee.name !== 'Error') return;
        context.report({
          node,
          message:
            'An operational failure is a code of the message table: oacError(code, values) from src/messages.ts; new Error( marks a bug only, in the files eslint.config.js allows (issue #38).',
        });
      },
    };
  },
};

// Issue #23: every error of ours is built from the message table (oacError in src/messages.ts),
// so no code is thrown without its line, and hint, in docs/messages.md. `new OacError(` is left
// to the files that build one from data that is not a code of ours; a class that extends
// OacError (UsageError, CoreError, DownloadError) calls super() and is not caught by this.
const buildsOacError = [
  'src/errors.ts', // the class itself
  'src/messages.ts', // oacError: the table's builder
  // Rebuilds, as its error, a refusal a driver made through the table (or the node half's,
  // schema-checked, with root's own hint).
  'src/resources/refusal-error.ts',
  // Re-raises the code and line the node half (oac-node _prepare) reported, with root's hint.
  'src/installation/node-half.ts',
  // A test of rendering: an error whose text is hostile on purpose, not a code of ours.
  'test/unit/printable.test.ts',
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.release/', '.tmp/'] },
  ...tseslint.configs.recommended,
  // The build's CommonJS stand-in for undici's index (scripts/undici-slim.cjs): require is its
  // point, and a CommonJS file has module and require as globals.
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'HTTP goes through src/net/.' }],
    },
  },
  {
    files: ['**/*.ts'],
    ignores: buildsOacError,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='OacError']",
          message:
            'Build the error from the message table: oacError(code, values, options) from src/messages.ts (issue #23).',
        },
      ],
    },
  },
  ...layers.map(({ files, paths, patterns }) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  })),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'fixtures/release/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: coreOnly }] },
  },
  {
    files: ['**/*.ts'],
    plugins: { oac: { rules: { 'layer-imports': layerImports, 'no-bare-error': noBareError } } },
    rules: { 'oac/layer-imports': 'error' },
  },
  {
    files: ['src/**/*.ts', 'installer/**/*.ts', 'uninstaller/**/*.ts', 'records/**/*.ts'],
    ignores: bareErrorAllowed,
    rules: { 'oac/no-bare-error': 'error' },
  },
);
