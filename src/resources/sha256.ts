// The SHA-256 of a text or bytes, hex: how a desired file's or unit's content is named.
import { createHash } from 'node:crypto';

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
