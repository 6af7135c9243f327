// esbuild `inject` file: the CommonJS bundle has no import.meta, and yargs calls
// createRequire(import.meta.url). `define` maps import.meta.url to this value
// (recipes/single-executable.md, pitfall 1). __filename exists in the CommonJS output.
import { pathToFileURL } from 'node:url';

export const importMetaUrl = pathToFileURL(__filename).href;
