// One JSON exchange over undici: bounded in time and in size, credentials only in headers.
// Transport failures become NetworkError so callers can tell "Core did not answer" (retryable)
// from "Core answered" (a status to map).
import { parseOwnJson, PrototypeKeyError } from '../json-file.ts';
import { request, type Dispatcher } from 'undici';
import { sharedDispatcher } from './dispatcher.ts';
import { linkedAbort, untilAborted } from './linked-abort.ts';
import { isOacError } from '../errors.ts';

const MAX_RESPONSE_BYTES = 1024 * 1024; // Core's JSON answers are a few KiB
export const DEFAULT_TIMEOUT_MS = 15_000;

/** The process's routing dispatcher: the proxy variables, and the pins (TRUST-01), so a caller
 *  that names no dispatcher cannot bypass either. */
export function defaultDispatcher(): Dispatcher {
  return sharedDispatcher();
}

export class NetworkError extends Error {
  readonly reason: string;
  constructor(reason: string, cause?: unknown) {
    super(reason, { cause });
    this.name = 'NetworkError';
    this.reason = reason;
  }
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: URL;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  /** Aborts the request before its timeout (the caller is stopping). */
  signal?: AbortSignal;
}

export interface JsonResponse {
  status: number;
  body: unknown; // parsed JSON, or undefined when the body was empty or not JSON
  /** Why a body that is there is not taken as JSON: `not JSON`, or `has a __proto__ key`. */
  unparsed?: string;
}

export async function sendJson(req: JsonRequest): Promise<JsonResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let payload: string | undefined;
  if (req.body !== undefined) {
    payload = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  // One controller per request, listening to the caller's long-lived signal (run's, alive for
  // days) only while this request runs: AbortSignal.any() on Node 20 would keep every combined
  // signal on it.
  // The overall deadline is a plain timer on the same controller: AbortSignal.any() holds its
  // sources weakly on Node 20, so a combined AbortSignal.timeout() could be collected unfired.
  const { controller: ended, unlink } = linkedAbort(req.signal);
  const deadline = setTimeout(
    () => ended.abort(new DOMException('timed out', 'TimeoutError')),
    timeoutMs,
  );
  try {
    const pending = request(req.url, {
      method: req.method,
      headers,
      body: payload,
      dispatcher: req.dispatcher ?? defaultDispatcher(),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: ended.signal,
    });
    // The deadline holds even while undici still waits for a connection (issue #27.1).
    const response = await untilAborted(pending, ended.signal, (late) => late.body.destroy());
    const text = await readBounded(response.body);
    return { status: response.statusCode, ...parseJson(text) };
  } catch (error) {
    // A refusal of ours (a pinned key not presented, TRUST-01) is no network failure: not retried.
    if (isOacError(error) || error instanceof NetworkError) throw error;
    throw new NetworkError(describeTransportError(error), error);
  } finally {
    clearTimeout(deadline);
    unlink();
  }
}

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > MAX_RESPONSE_BYTES) {
        body.destroy();
        throw new NetworkError(`the answer exceeds ${MAX_RESPONSE_BYTES} bytes`);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof NetworkError) throw error;
    throw new NetworkError(describeTransportError(error), error);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { body: unknown; unparsed?: string } {
  if (text.length === 0) return { body: undefined };
  try {
    return { body: parseOwnJson(text) };
  } catch (error) {
    const unparsed = error instanceof PrototypeKeyError ? error.message : 'not JSON';
    return { body: undefined, unparsed };
  }
}

/** A short reason for one line. Never includes headers, so never a credential. */
export function describeTransportError(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed';
  const code = (error as { code?: unknown }).code;
  if (code === 'OAC_CONNECT_FAILED') return error.message; // ours (connect-failure.ts)
  if (error.name === 'AbortError') return 'stopped';
  if (error.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'timed out';
  if (code === 'UND_ERR_BODY_TIMEOUT') return 'timed out while reading the answer';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed unexpectedly';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (isCertificateCode(code)) return `TLS: ${String(code)}`;
  return typeof code === 'string' ? code : (error.message.split('\n')[0] ?? 'request failed');
}

/** Node's and OpenSSL's codes of a certificate the client would not accept. */
function isCertificateCode(code: unknown): boolean {
  const text = String(code ?? '');
  return text.includes('CERT') || text === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';
}

/** A reason describeTransportError gave for a certificate this host does not trust: not a
 *  network problem (its message names the pin, src/messages.ts core_certificate_untrusted). */
export function isCertificateReason(reason: string): boolean {
  return reason.startsWith('TLS: ');
}
