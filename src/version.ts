// The program's version. Kept equal to package.json's by test/unit/version.test.ts; a constant
// rather than a package.json read because the single executable has no package.json beside it
// (recipes/single-executable.md pitfall 7).
export const VERSION = '0.1.0';
export const PROGRAM = 'oac-node';
