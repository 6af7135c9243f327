// Standard input, read whole and bounded. A terminal is never read: the token comes from the
// one-line command's pipe, not from someone typing (BOOT-05).
export async function readStdin(limit: number): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limit) throw new Error(`standard input exceeds ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
