// SEC-01: Core, console and release URLs must be https, except loopback addresses (tests, the
// demo). TLS verification is never turned off anywhere in src/net.
import { OacError } from '../errors.ts';
import { message } from '../messages.ts';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Parses a URL that names Core, the console or the release, and enforces SEC-01. */
export function parseServiceUrl(raw: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OacError('invalid_url', message('invalid_url', { what, url: raw }));
  }
  const plainLoopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainLoopback) {
    throw new OacError('insecure_url', message('insecure_url', { what, url: url.origin }));
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials travel in Authorization headers only, never in a URL (machine-api.md).
    throw new OacError('invalid_url', message('invalid_url', { what, url: url.origin }));
  }
  return url;
}

/** Core's origin, as the machine API compares it: scheme, host and port, no path. */
export function coreOrigin(raw: string): string {
  return parseServiceUrl(raw, 'The Core URL').origin;
}
