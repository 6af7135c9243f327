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

/** Parses a URL that names Core, the console or the release, and enforces SEC-01. A value
 *  without `scheme://` (`core.example:8443` parses as the scheme `core.example:`) is said to
 *  lack its scheme, quoted as given (a user and password in it masked), not as its origin. */
export function parseServiceUrl(raw: string, what: string, exitCode?: number): URL {
  const options = exitCode === undefined ? {} : { exitCode };
  // As URL itself does, leading and trailing blanks are not the address.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw.trim()))
    throw oacError(
      'invalid_url',
      { what, url: masked(raw), problem: 'no https:// in front' },
      options,
    );
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw oacError('invalid_url', { what, url: masked(raw), problem: 'not a URL' }, options);
  }
  const plainLoopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainLoopback) {
    throw oacError('insecure_url', { what, url: `${url.protocol}//${url.host}` }, options);
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials travel in Authorization headers only, never in a URL (machine-api.md).
    const problem = 'a user name or password in it; credentials never go in a URL';
    throw oacError('invalid_url', { what, url: url.origin, problem }, options);
  }
  return url;
}

/** Core's URL as an operator gives it: an origin. A path, query or fragment is refused, not
 *  dropped (`https://core.example/api/` is not Core's address, and the machine API's routes
 *  hang off the origin). */
export function parseCoreUrl(raw: string, exitCode?: number): URL {
  const url = parseServiceUrl(raw, 'The Core URL', exitCode);
  const extra = url.search !== '' ? 'a query' : url.hash !== '' ? 'a fragment' : 'a path';
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    const problem = `${extra}; Core's URL is its origin only, such as ${url.origin}`;
    // Origin and path only: a query may hold what was never meant to be printed.
    const values = {
      what: 'The Core URL',
      url: `${url.origin}${url.pathname}`.slice(0, 200),
      problem,
    };
    throw oacError('invalid_url', values, exitCode === undefined ? {} : { exitCode });
  }
  return url;
}

/** The text of a URL for a message, bounded: whatever comes before its last `@` (a user and a
 *  password, which may hold `/` or `@` themselves) masked (SEC-03). */
function masked(raw: string): string {
  const at = raw.lastIndexOf('@');
  return (at < 0 ? raw : `…@${raw.slice(at + 1)}`).trim().slice(0, 200);
}
