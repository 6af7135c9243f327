// The failures a download can end with, each one OacError with a code, one line and a hint
// (STYLE.md point 5). No message carries a URL credential or a proxy password: URLs with
// credentials are refused up front, and proxies are shown as their route display
// (`http://***@host:port`, SEC-03).
import { OacError } from '../errors.ts';
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

const RERUN_HINT =
  "Check the host's network connection and proxy settings, then run the command again: it resumes where it stopped.";

export function stalled(file: string, minBytes: number, windowMs: number, kept: number) {
  return new DownloadError(
    'download_stalled',
    `Downloading ${file} stalled: less than ${formatBytes(minBytes)} arrived in ${formatDuration(windowMs)} (${formatBytes(kept)} kept)`,
    false,
    { hint: RERUN_HINT },
  );
}

export function interrupted(
  file: string,
  received: number,
  total: number,
  reason: string,
  via: string,
  cause?: unknown,
) {
  return new DownloadError(
    'download_interrupted',
    `Downloading ${file} failed after ${formatBytes(received)} of ${formatBytes(total)}${via}: ${reason}`,
    true,
    { hint: RERUN_HINT, cause },
  );
}

const PROXY_AUTH_HINT =
  'Check the user and password in the proxy variable (percent-encode @ as %40 and : as %3A), then run the command again.';

/** A failure no retry in this run can fix: the proxy's credentials, or TLS verification. */
export function refused(file: string, reason: string, via: string, cause?: unknown) {
  const proxyAuth = /\b407\b/.test(reason);
  return new DownloadError(
    proxyAuth ? 'download_proxy_auth' : 'download_tls',
    `Downloading ${file} failed${via}: ${reason}`,
    false,
    {
      hint: proxyAuth
        ? PROXY_AUTH_HINT
        : "TLS verification is always on: check the host's clock, and that no proxy intercepts https (the installer tunnels https through CONNECT).",
      cause,
    },
  );
}

/** Whether a transport failure is one that `refused` describes. */
export function isRefusal(reason: string): boolean {
  return /\b407\b/.test(reason) || reason.startsWith('TLS: ');
}

export function httpStatus(file: string, host: string, status: number, via: string) {
  const retryable = status >= 500 || status === 408 || status === 429;
  // Through a proxy, 401 or 407 is most likely the proxy (tinyproxy answers bad credentials
  // with 401, recipe pitfall 5).
  const proxyAuth = via !== '' && (status === 401 || status === 407);
  return new DownloadError(
    proxyAuth ? 'download_proxy_auth' : 'download_http_status',
    `${host} answered HTTP ${status} for ${file}${via}`,
    retryable,
    {
      hint: proxyAuth
        ? PROXY_AUTH_HINT
        : retryable
          ? RERUN_HINT
          : 'Check that the console serves the release this command names, then run the command again.',
    },
  );
}

export function sizeMismatch(file: string, served: string, expected: number) {
  return new DownloadError(
    'download_size_mismatch',
    `The server sends ${served} for ${file}, but the release manifest says ${expected} bytes`,
    false,
    {
      hint: 'The server and the release manifest disagree: check that the console serves the release it names, then run the command again.',
    },
  );
}

export function corrupt(file: string, actual: string, expected: string) {
  return new DownloadError(
    'download_corrupt',
    `${file} does not match the release manifest: its SHA-256 is ${actual}, the manifest says ${expected}`,
    false,
    {
      hint: 'The damaged download was deleted. Run the command again; if this repeats, something between this host and the release (a proxy, or the server) alters the file.',
    },
  );
}

/** The disk, not the network: no retry in this run helps. */
export function writeFailed(path: string, error: unknown) {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : 'write failed';
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new DownloadError('download_write', `Cannot write ${path}: ${reason}`, false, {
    hint: full
      ? 'Free disk space on that file system, then run the command again: it resumes where it stopped.'
      : 'Check the file system, then run the command again.',
    cause: error,
  });
}

export function badRedirect(file: string, why: string) {
  return new DownloadError('download_redirect', `Downloading ${file}: ${why}`, false, {
    hint: 'The console must redirect node files to an https address (plain http only on loopback).',
  });
}

export function invalidDownloadUrl(what: string) {
  return new DownloadError('download_url', `Cannot download from ${what}`, false);
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
