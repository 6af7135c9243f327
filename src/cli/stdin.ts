// Standard input, read whole and bounded. A terminal is never read: the token comes from the
// one-line command's pipe, not from someone typing (BOOT-05). Whatever arrives is input from
// outside (SEC-04): too much of it is one usage line, never a stack trace.
import { UsageError } from '../errors.ts';

export async function readStdin(limit: number, holds: string): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limit) {
      process.stdin.destroy();
      throw new UsageError(
        `Standard input holds more than ${limit} bytes; it must hold only ${holds}`,
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
