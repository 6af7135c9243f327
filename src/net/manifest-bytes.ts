// A release manifest exactly as the console serves it (OFFLINE-01): `oac-node bundle` keeps these
// bytes, whose SHA-256 the host's command names. Bounded in size and time; parsed with the
// manifest's schema and checked to be of the release asked for.
import { request, type Dispatcher } from 'undici';
import { oacError } from '../messages.ts';
import { releaseManifestSchema, type ReleaseManifest } from './release-manifest.ts';

const MANIFEST_MAX_BYTES = 1024 * 1024;

/** The manifest of `release` as the console serves it: its exact bytes, and parsed. */
export async function manifestBytes(
  consoleUrl: string,
  release: string,
  dispatcher: Dispatcher,
): Promise<{ manifest: ReleaseManifest; bytes: Buffer }> {
  const url = new URL(`/node-files/${release}/manifest.json`, consoleUrl);
  const response = await request(url, {
    dispatcher,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw oacError('manifest_unavailable', {
      release,
      status: response.statusCode,
      path: url.pathname,
    });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += (chunk as Buffer).length;
    if (total > MANIFEST_MAX_BYTES) {
      response.body.destroy();
      throw oacError('manifest_invalid', { detail: `it is over ${MANIFEST_MAX_BYTES} bytes` });
    }
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = releaseManifestSchema.safeParse(json);
  if (!parsed.success || parsed.data.release !== release)
    throw oacError('manifest_invalid', { detail: `it is no manifest of release ${release}` });
  return { manifest: parsed.data, bytes };
}
