// A JSON file checked against its schema: undefined for text that is not JSON or does not fit,
// so callers say in one line what is damaged instead of failing with a parser's stack.
import type * as z from 'zod';

export function parseJsonWith<S extends z.ZodType>(raw: Buffer, schema: S): z.infer<S> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
