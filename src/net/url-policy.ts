// SEC-01: Core, console and release URLs must be https, except loopback addresses (tests, the
// demo). TLS verification is never turned off anywhere in src/net.
import { oacError } from '../messages.ts';

/**
 * SEC-01, SEC-07: loopback is 127.0.0.0/8, ::1 and the name `localhost` exactly: plain http is
 * allowed and no proxy is used only for these. Not names under `.localhost`: RFC 6761 asks
 * resolvers to answer them with loopback, but Node's lookup (getaddrinfo) sends them to DNS
 * like any other name, so they may lead anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return octets !== null && octets.slice(1).every((o) => Number(o) <= 255);
}

/** Parses a URL that names Core, the console or the release, and enforces SEC-01. */
export function parseServiceUrl(raw: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw oacError('invalid_url', { what, url: raw });
  }
  const plainLoopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainLoopback) {
    throw oacError('insecure_url', { what, url: url.origin });
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials travel in Authorization headers only, never in a URL (machine-api.md).
    throw oacError('invalid_url', { what, url: url.origin });
  }
  return url;
}

/** Core's origin, as the machine API compares it: scheme, host and port, no path. */
export function coreOrigin(raw: string): string {
  return parseServiceUrl(raw, 'The Core URL').origin;
}
