// A release manifest exactly as the console serves it (OFFLINE-01): `oac-node bundle` keeps these
// bytes, whose SHA-256 the host's command names. Bounded in size and time; parsed with the
// manifest's schema and checked to be of the release asked for.
import { request, type Dispatcher } from 'undici';
import { isOacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import { describeTransportError, isCertificateReason } from './http-json.ts';
import { untilAborted } from './linked-abort.ts';
import { releaseManifestSchema, type ReleaseManifest } from './release-manifest.ts';

const MANIFEST_MAX_BYTES = 1024 * 1024;
const MANIFEST_DEADLINE_MS = 60_000;

/** The manifest of `release` as the console serves it: its exact bytes, and parsed. */
export async function manifestBytes(
  consoleUrl: string,
  release: string,
  dispatcher: Dispatcher,
): Promise<{ manifest: ReleaseManifest; bytes: Buffer }> {
  const url = new URL(`/node-files/${release}/manifest.json`, consoleUrl);
  // Bounded whole, even while undici still waits for a connection (issue #27.1).
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException('timed out', 'TimeoutError')),
    MANIFEST_DEADLINE_MS,
  );
  try {
    return await readManifest(url, release, dispatcher, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function readManifest(
  url: URL,
  release: string,
  dispatcher: Dispatcher,
  signal: AbortSignal,
): Promise<{ manifest: ReleaseManifest; bytes: Buffer }> {
  const pending = request(url, {
    dispatcher,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    signal,
  });
  const unreachable = (error: unknown): never => {
    if (isOacError(error)) throw error; // a pinned key not presented (TRUST-01), ours
    const reason = describeTransportError(error);
    const code = isCertificateReason(reason) ? 'core_certificate_untrusted' : 'core_unreachable';
    throw oacError(code, { origin: url.origin, reason }, { cause: error });
  };
  const response = await untilAborted(pending, signal, (late) => late.body.destroy()).catch(
    unreachable,
  );
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw oacError('manifest_unavailable', {
      release,
      status: response.statusCode,
      path: url.pathname,
    });
  }
  const bytes = await readBounded(response.body).catch(unreachable);
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

/** The answer's bytes, at most MANIFEST_MAX_BYTES (a deadline or a drop while reading is the
 *  caller's to name: it ends here as the transport's error). */
async function readBounded(body: AsyncIterable<unknown> & { destroy(): void }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > MANIFEST_MAX_BYTES) {
      body.destroy();
      throw oacError('manifest_invalid', { detail: `it is over ${MANIFEST_MAX_BYTES} bytes` });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
