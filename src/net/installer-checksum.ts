// The installer's checksum as the console publishes it: `<console>/node-install/SHA256SUMS`, the
// line for the executable `oac-node` (docs/release-manifest.md; the file also lists
// `oac-node.gz`). `oac-node command` embeds it in the line it prints (BOOT-06): the line checks
// the unpacked executable and keeps it under this name (BOOT-03). One bounded GET: SEC-01 URL policy, 10 s, 64 KiB, no redirects.
import { request, type Dispatcher } from 'undici';
import { OacError, isOacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import { defaultDispatcher, describeTransportError } from './http-json.ts';
import { untilAborted } from './linked-abort.ts';
import { parseServiceUrl } from './url-policy.ts';

export const CHECKSUM_TIMEOUT_MS = 10_000;
export const CHECKSUM_MAX_BYTES = 64 * 1024;
export const INSTALLER_NAME = 'oac-node';
const ROUTE = 'GET /node-install/SHA256SUMS';

export interface ChecksumOptions {
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/**
 * The SHA-256 that a `sha256sum`-format text lists for `oac-node` (`<hex>  oac-node` or
 * `<hex> *oac-node`), or undefined when there is no such line or two lines disagree.
 */
export function parseInstallerSha256(text: string): string | undefined {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *]oac-node\r?$/.exec(line);
    if (match?.[1] !== undefined) found.add(match[1]);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The URL of the console's SHA256SUMS; the console may live under a path prefix. */
export function installerSumsUrl(consoleUrl: string): URL {
  const base = parseServiceUrl(consoleUrl, 'The console URL');
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${base.origin}${prefix}/node-install/SHA256SUMS`);
}

export async function fetchInstallerSha256(
  consoleUrl: string,
  options: ChecksumOptions = {},
): Promise<string> {
  const url = installerSumsUrl(consoleUrl);
  const timeoutMs = options.timeoutMs ?? CHECKSUM_TIMEOUT_MS;
  const unreachable = (reason: string, cause?: unknown): OacError =>
    oacError('installer_checksum_unreachable', { origin: url.origin, reason }, { cause });
  let response: Dispatcher.ResponseData;
  // A plain timer, not AbortSignal.timeout(): held by this frame, never collected unfired; and
  // the deadline holds even while undici still waits for a connection (issue #27.1).
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException('timed out', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref(); // covers the body too; firing after the answer was read changes nothing
  try {
    const pending = request(url, {
      method: 'GET',
      headers: { accept: 'text/plain' },
      dispatcher: options.dispatcher ?? defaultDispatcher(),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: deadline.signal,
    });
    response = await untilAborted(pending, deadline.signal, (late) => late.body.destroy());
  } catch (error) {
    if (isOacError(error)) throw error; // a pinned key not presented (TRUST-01)
    throw unreachable(describeTransportError(error), error);
  }
  if (response.statusCode !== 200) {
    response.body.destroy();
    throw oacError('installer_checksum_http_status', {
      status: response.statusCode,
      route: ROUTE,
    });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > CHECKSUM_MAX_BYTES) {
        response.body.destroy();
        throw oacError('installer_checksum_invalid', {
          route: ROUTE,
          problem: `exceeds ${CHECKSUM_MAX_BYTES} bytes`,
        });
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof OacError) throw error;
    throw unreachable(describeTransportError(error), error);
  }
  const sha256 = parseInstallerSha256(Buffer.concat(chunks).toString('utf8'));
  if (sha256 === undefined) {
    throw oacError('installer_checksum_invalid', {
      route: ROUTE,
      problem: `lists no single SHA-256 for ${INSTALLER_NAME}`,
    });
  }
  return sha256;
}
