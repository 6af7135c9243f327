// Issue #41: zod compiles a parser of its own for each object schema (a `new Function`) the first
// time that schema parses anything. A run of oac-node parses each schema a few times at most, so
// that compilation is all cost: about 10 ms of every start of the node half (bench/README.md),
// and code V8's cache of the bundle cannot hold. Without it zod checks the same way, through
// its general code; and no code is made from strings at run time. Imported first by the entry
// (src/cli/entry.ts), before any schema exists: zod reads the setting as a schema is made.
import { config } from 'zod';

config({ jitless: true });
