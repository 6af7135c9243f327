// A JSON file checked against its schema: undefined for text that is not JSON or does not fit,
// so callers say in one line what is damaged instead of failing with a parser's stack.
import type * as z from 'zod';

/** Thrown by parseOwnJson for a `__proto__` key: said as such, not as "not JSON". */
export class PrototypeKeyError extends SyntaxError {
  constructor() {
    super('has a __proto__ key');
    this.name = 'PrototypeKeyError';
  }
}

/** JSON.parse, refusing a `__proto__` key anywhere: JSON.parse makes it an own key, which zod
 *  then drops without a word when it copies the object (a record would read as if the key were
 *  not there), or keeps deep inside a record of unknowns, to be refused only when read back from
 *  the file it was written to. Used for our files and for what Core and the provider file say,
 *  so such a key is refused before anything is written (issue #26's fuzzing). */
export function parseOwnJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new PrototypeKeyError();
    return value;
  });
}

export function parseJsonWith<S extends z.ZodType>(raw: Buffer, schema: S): z.infer<S> | undefined {
  let json: unknown;
  try {
    json = parseOwnJson(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** The same check, saying what is wrong (`not JSON`, or the first field outside the schema)
 *  for a one-line message; never the content, which may hold a secret. */
export function checkJsonWith<S extends z.ZodType>(
  raw: Buffer,
  schema: S,
): { data: z.infer<S> } | { problem: string } {
  let json: unknown;
  try {
    json = parseOwnJson(raw.toString('utf8'));
  } catch (error) {
    return { problem: error instanceof PrototypeKeyError ? error.message : 'not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { data: parsed.data };
  const path = parsed.error.issues[0]?.path.join('.') ?? '';
  return {
    problem: path === '' ? 'not the expected JSON object' : `${path} is missing or invalid`,
  };
}
