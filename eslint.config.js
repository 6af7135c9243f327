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

// The import picture (docs/architecture.md): cli → installer/uninstaller → engine → host/net,
// nothing upward, and the uninstaller never reaches into the installer (issue #10).
const above = (...names) =>
  names.map((name) => ({
    group: [`**/${name}/**`],
    message: `Nothing imports upward into ${name}/ (docs/architecture.md).`,
  }));
const layers = [
  { files: ['installer/**/*.ts'], patterns: above('uninstaller', 'cli') },
  { files: ['uninstaller/**/*.ts'], patterns: above('installer', 'cli') },
  {
    files: ['src/engine/**/*.ts', 'records/**/*.ts', 'src/agent/**/*.ts'],
    patterns: above('installer', 'uninstaller', 'cli'),
  },
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
    files: product,
    ignores: ['src/host/**', 'src/net/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...hostOnly, ...netOnly, ...coreOnly] }],
    },
  },
  ...layers.map(({ files, patterns }) => ({
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...hostOnly, ...netOnly, ...coreOnly], patterns },
      ],
    },
  })),
  {
    files: ['src/host/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...netOnly, ...coreOnly],
          patterns: above('engine', 'agent', 'installer', 'uninstaller', 'cli'),
        },
      ],
    },
  },
  {
    files: ['src/net/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...hostOnly, ...coreOnly],
          patterns: above('engine', 'agent', 'installer', 'uninstaller', 'cli'),
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'fixtures/release/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: coreOnly }] },
  },
);
