// Lint rules. The boundary rules keep every side effect behind one door (DESIGN.md "Host: the
// only door to the machine"): node:fs, execa and proper-lockfile only in src/host/, undici only
// in src/net/, ws only in the reference Core. Fixtures, tests, benchmarks and build scripts are
// harness code around the product and may touch the machine directly.
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
const product = ['src/**/*.ts', 'installer/**/*.ts', 'uninstaller/**/*.ts', 'records/**/*.ts'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.release/', '.tmp/'] },
  ...tseslint.configs.recommended,
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
    files: product,
    ignores: ['src/host/**', 'src/net/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...hostOnly, ...netOnly, ...coreOnly] }],
    },
  },
  {
    files: ['src/host/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...netOnly, ...coreOnly] }] },
  },
  {
    files: ['src/net/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...hostOnly, ...coreOnly] }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'fixtures/release/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: coreOnly }] },
  },
);
