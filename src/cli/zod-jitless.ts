// Issue #41: zod compiles a parser of its own for each object schema (a `new Function`) the first
// time that schema parses anything. A run of oac-node parses each schema a few times at most, so
// that compilation is all cost (a few milliseconds of each process, in the node half's CPU
// profile: bench/README.md), and V8's cache of the bundle cannot hold that code. Without it
// zod checks the same way, through its general code, and no code is made from strings at run
// time. Imported first by the entry (src/cli/entry.ts), before any schema exists: zod reads the
// setting as a schema is made.
import { config } from 'zod';

config({ jitless: true });
