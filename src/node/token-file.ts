// NODE-01: manual registration reads the enrollment token from a file, never from argv or the
// environment. A file that group or others can read is refused: the token may already be out.
import { lstatIfExists, readIfExists } from '../host/files.ts';
import { oacError } from '../messages.ts';

export async function readTokenFile(path: string): Promise<string> {
  const stats = await lstatIfExists(path).catch(() => undefined);
  if (stats === undefined || !stats.isFile()) {
    const reason = stats === undefined ? 'no such file' : 'not a regular file';
    throw oacError('token_file_unreadable', { path, reason });
  }
  if ((stats.mode & 0o077) !== 0) {
    throw oacError('token_file_exposed', { path });
  }
  const raw = await readIfExists(path);
  const token = raw?.toString('utf8').trim() ?? '';
  if (token.length === 0 || /\s/.test(token)) {
    throw oacError('token_file_empty', { path });
  }
  return token;
}
