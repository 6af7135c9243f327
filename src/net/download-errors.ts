// The failures a download can end with, each one OacError with a code, one line and a hint
// (docs/architecture.md "Errors"). No message carries a URL credential or a proxy password: URLs with
// credentials are refused up front, and proxies are shown as their route display
// (`http://***@host:port`, SEC-03).
import { dirname } from 'node:path';
import { OacError } from '../errors.ts';
import { hint, message, type MessageCode } from '../messages.ts';
import { describeTransportError } from './http-json.ts';

/** An OacError that says whether another attempt in the same run may help. */
export class DownloadError extends OacError {
  constructor(
    code: string,
    message: string,
    readonly retryable: boolean,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.name = 'DownloadError';
  }
}

type Values = Record<string, string | number>;

/** One failure from the messages table (src/messages.ts, the one table: docs/architecture.md "Errors"). */
function failure(code: MessageCode, values: Values, retryable: boolean, cause?: unknown) {
  return new DownloadError(code, message(code, values), retryable, {
    hint: hint(code, values),
    cause,
  });
}

export function stalled(file: string, minBytes: number, windowMs: number, kept: number) {
  const values = {
    file,
    min: formatBytes(minBytes),
    window: formatDuration(windowMs),
    kept: formatBytes(kept),
  };
  return failure('download_stalled', values, false);
}

export function interrupted(
  file: string,
  received: number,
  total: number,
  reason: string,
  via: string,
  cause?: unknown,
) {
  const values = { file, received: formatBytes(received), total: formatBytes(total), via, reason };
  return failure('download_interrupted', values, true, cause);
}

/** A failure no retry in this run can fix: the proxy's credentials, or TLS verification. */
export function refused(file: string, reason: string, via: string, cause?: unknown) {
  const code = /\b407\b/.test(reason) ? 'download_proxy_auth' : 'download_tls';
  return failure(code, { file, via, reason }, false, cause);
}

/** Whether a transport failure is one that `refused` describes. */
export function isRefusal(reason: string): boolean {
  return /\b407\b/.test(reason) || reason.startsWith('TLS: ');
}

export function httpStatus(file: string, host: string, status: number, via: string) {
  // Through a proxy, 401 or 407 is most likely the proxy (tinyproxy answers bad credentials
  // with 401, recipe pitfall 5).
  if (via !== '' && (status === 401 || status === 407)) {
    const reason = `${host} answered HTTP ${status}`;
    return failure('download_proxy_auth', { file, via, reason }, false);
  }
  const retryable = status >= 500 || status === 408 || status === 429;
  const code = retryable ? 'download_server_error' : 'download_http_status';
  return failure(code, { host, status, file, via }, retryable);
}

export function sizeMismatch(file: string, served: string, expected: number) {
  return failure('download_size_mismatch', { served, file, expected }, false);
}

export function corrupt(file: string, actual: string, expected: string) {
  return failure('download_corrupt', { file, actual, expected }, false);
}

/** The disk, not the network: no retry in this run helps. */
export function writeFailed(path: string, error: unknown) {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : 'write failed';
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  // REL-01: a full disk is said in words, with where to look (the part is kept: DL-02).
  if (full) return failure('download_disk_full', { path, dir: dirname(path) }, false, error);
  return failure('download_write', { path, reason }, false, error);
}

export function badRedirect(file: string, why: string) {
  return failure('download_redirect', { file, why }, false);
}

export function invalidDownloadUrl(what: string) {
  return failure('download_url', { what }, false);
}

/** A short reason for one line: transport errors and undici's proxy errors, never headers. */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const tunnel = /Proxy response \((\d{3})\)/.exec(error.message);
    if (tunnel) return `the proxy answered HTTP ${tunnel[1]} to CONNECT`;
    if (error.message.includes('Proxy Authentication Required (407)')) {
      return 'the proxy requires valid credentials (HTTP 407)';
    }
    const code = (error as { code?: unknown }).code;
    if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'the answer ended early';
    if (code === 'UND_ERR_SOCKET') return 'the connection closed unexpectedly';
    if (typeof code === 'string' && code.startsWith('ERR_TLS_')) return `TLS: ${code}`;
  }
  return describeTransportError(error);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = value >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'a minute' : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
