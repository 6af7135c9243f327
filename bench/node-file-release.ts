// What the download benches serve: one node file of random bytes (default 1 GiB) in a release
// directory with its manifest, as the reference Core's console serves it (from disk, with
// Content-Length and Range). Returns what a download of it needs.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const RELEASE = '0.0.0-benchdownload';
export const NAME = `oac-node-${RELEASE}-linux-amd64.gz`;

export async function writeNodeFileRelease(
  releaseDir: string,
  size: number,
): Promise<{ sha256: string }> {
  const sha256 = await writeRandomFile(join(releaseDir, NAME), size);
  await writeFile(
    join(releaseDir, 'manifest.json'),
    JSON.stringify({
      format: 1,
      release: RELEASE,
      created_at: '2026-01-01T00:00:00.000Z',
      files: [{ name: NAME, size, sha256, kind: 'node-program', provider: 'any' }],
    }),
  );
  return { sha256 };
}

/** Random bytes written in 16 MiB pieces and hashed on the way; returns the SHA-256. */
async function writeRandomFile(path: string, size: number): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  try {
    for (let written = 0; written < size;) {
      const piece = randomBytes(Math.min(16 * 1024 * 1024, size - written));
      hash.update(piece);
      await handle.write(piece);
      written += piece.length;
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
