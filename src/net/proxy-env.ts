// DL-04: which way one request goes, decided from the six proxy variables exactly as the guide
// says. Pure: no I/O, no global state; the dispatcher (dispatcher.ts) asks it per request.
//
// Why our own resolver and not undici's EnvHttpProxyAgent (docs/downloads.md,
// measured with undici 7.30): undici sends https through the *http* proxy when an empty
// `https_proxy` hides a set `HTTPS_PROXY`, proxies loopback addresses, counts `*` only as the
// whole `no_proxy` value, and throws on `host:port` without a scheme (curl accepts it).
import type { OacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import { isLoopbackHost } from './url-policy.ts';

export const PROXY_VARIABLES = [
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
] as const;
export type ProxyVariable = (typeof PROXY_VARIABLES)[number];
export type ProxyEnv = Partial<Record<ProxyVariable, string>>;

export interface ProxyServer {
  /** The proxy's origin, never with credentials: `http://host:port`. */
  url: URL;
  /** URL-decoded; present when the proxy URL names a user. */
  credentials?: { username: string; password: string };
  /** What route lines print: `http://***@host:port` or `http://host:port` (SEC-03). */
  display: string;
  /** The variable it came from, for messages. */
  variable: ProxyVariable;
}

export type DirectReason = 'loopback' | 'no proxy set' | `no_proxy ${string}`;
export type Route =
  | { kind: 'direct'; why: DirectReason }
  | {
      kind: 'proxy';
      proxy: URL;
      display: string;
      variable: ProxyVariable;
      credentials?: { username: string; password: string };
    };

export type NoProxyRule =
  | { kind: 'all'; text: string }
  | { kind: 'host'; host: string; port?: number; text: string }
  | { kind: 'cidr'; family: 4 | 6; base: bigint; bits: number; port?: number; text: string };

export interface ProxySettings {
  http?: ProxyServer;
  https?: ProxyServer;
  noProxy: NoProxyRule[];
}

// curl's defaults when a proxy URL names no port: 1080 for http proxies, 443 for https ones.
// The one-line command downloads the installer with curl under the same variables, so the
// installer must reach the proxy curl reached (`curl -v` shows "Trying 127.0.0.1:1080").
const DEFAULT_PROXY_PORT: Record<string, string> = { 'http:': '1080', 'https:': '443' };
const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** The six variables of an environment, nothing else (the snapshot the dispatcher keeps). */
export function proxyEnvFrom(env: Record<string, string | undefined> = process.env): ProxyEnv {
  const picked: ProxyEnv = {};
  for (const name of PROXY_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** Lowercase wins when it is set at all, even empty (DL-04). */
function pick(env: ProxyEnv, lower: ProxyVariable, upper: ProxyVariable) {
  if (env[lower] !== undefined) return { variable: lower, value: env[lower] };
  if (env[upper] !== undefined) return { variable: upper, value: env[upper] };
  return undefined;
}

/** A C0 control character or DEL: never part of a proxy URL or a no_proxy entry. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * SEC-04, HOST-06: none of the six may hold a control character, not even one that another
 * variable hides (lowercase wins) or that trimming would drop: the env file keeps every set
 * variable, one per line (records/env-file.ts), and cannot write one holding a line end
 * (a CRLF /etc/environment ends every value with a carriage return; issue #27 finding 4).
 */
function refuseControlCharacters(env: ProxyEnv): void {
  for (const name of PROXY_VARIABLES) {
    const value = env[name];
    if (value !== undefined && CONTROL_CHARACTER.test(value))
      throw oacError('proxy_control_character', { name });
  }
}

/** Parses the variables once; a bad value throws one OacError naming the variable. */
export function parseProxyEnv(env: ProxyEnv): ProxySettings {
  refuseControlCharacters(env);
  const settings: ProxySettings = { noProxy: [] };
  const http = pick(env, 'http_proxy', 'HTTP_PROXY');
  const https = pick(env, 'https_proxy', 'HTTPS_PROXY');
  const noProxy = pick(env, 'no_proxy', 'NO_PROXY');
  if (http !== undefined && http.value.trim() !== '') {
    settings.http = parseProxyUrl(http.variable, http.value);
  }
  if (https !== undefined && https.value.trim() !== '') {
    settings.https = parseProxyUrl(https.variable, https.value);
  }
  if (noProxy !== undefined) settings.noProxy = parseNoProxy(noProxy.variable, noProxy.value);
  return settings;
}

export function parseProxyUrl(variable: ProxyVariable, raw: string): ProxyServer {
  const text = raw.trim();
  // curl reads `host:port` (no scheme) as `http://host:port`.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalidProxy(variable);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw oacError('proxy_unsupported_scheme', {
      name: variable,
      scheme: url.protocol.replace(/:$/, ''),
    });
  }
  if (url.hostname === '') throw invalidProxy(variable);
  let credentials: ProxyServer['credentials'];
  if (url.username !== '' || url.password !== '') {
    try {
      credentials = {
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      };
    } catch {
      throw invalidProxy(variable); // a bad % escape; the value itself is never echoed
    }
  }
  // The URL parser drops a port equal to the scheme's default, so look at what was written.
  const written = /^[^:]+:\/\/(?:[^/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)/.exec(withScheme)?.[1];
  const port =
    written === undefined ? (DEFAULT_PROXY_PORT[url.protocol] ?? '') : String(Number(written));
  const origin = new URL(url.origin);
  origin.port = port;
  const display = `${url.protocol}//${credentials === undefined ? '' : '***@'}${url.hostname}:${port}`;
  return { url: origin, display, variable, ...(credentials === undefined ? {} : { credentials }) };
}

function invalidProxy(variable: ProxyVariable): OacError {
  return oacError('proxy_invalid', { name: variable });
}

/** `no_proxy`: comma-separated; `*` alone is everything; hosts, suffixes, host:port, CIDR. */
export function parseNoProxy(variable: ProxyVariable, raw: string): NoProxyRule[] {
  const rules: NoProxyRule[] = [];
  for (const piece of raw.split(',')) {
    const text = piece.trim().toLowerCase();
    if (text === '') continue;
    if (text === '*') {
      rules.push({ kind: 'all', text });
      continue;
    }
    const rule = parseNoProxyEntry(text);
    if (rule === undefined) {
      throw oacError('no_proxy_invalid', { name: variable, entry: text });
    }
    rules.push(rule);
  }
  return rules;
}

function parseNoProxyEntry(text: string): NoProxyRule | undefined {
  let host = text;
  let port: number | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const hostAndPort = /^([^:]+):(\d{1,5})$/.exec(text);
  if (bracketed) {
    host = bracketed[1] ?? '';
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (hostAndPort) {
    host = hostAndPort[1] ?? '';
    port = Number(hostAndPort[2]);
  }
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(host);
  if (cidr) {
    const address = parseIp(cidr[1] ?? '');
    const bits = Number(cidr[2]);
    if (address === undefined || bits > (address.family === 4 ? 32 : 128)) return undefined;
    const { family, value: base } = address;
    return { kind: 'cidr', family, base, bits, text, ...(port === undefined ? {} : { port }) };
  }
  // `.dom`, `*.dom` and `dom` all mean the domain and every name under it (curl, undici).
  host = host.replace(/^\*?\./, '').replace(/\.$/, '');
  if (host === '' || !/^[a-z0-9._:-]+$/.test(host)) return undefined;
  if (host.includes(':')) {
    // An IPv6 address, written the way the URL parser writes hosts (`fd00:0::1` → `fd00::1`).
    if (parseIp(host) === undefined) return undefined;
    host = new URL(`http://[${host}]/`).hostname.replace(/^\[|\]$/g, '');
  }
  return { kind: 'host', host, text, ...(port === undefined ? {} : { port }) };
}

function parseIp(text: string): { family: 4 | 6; value: bigint } | undefined {
  const v4 = ipv4ToBigInt(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = ipv6ToBigInt(text);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

function ipv4ToBigInt(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return;
  return parts.reduce((n, p) => (n << 8n) + BigInt(p), 0n);
}

function ipv6ToBigInt(text: string): bigint | undefined {
  let t = text;
  const embedded = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(t); // ::ffff:10.0.0.1
  if (embedded) {
    const v4 = ipv4ToBigInt(embedded[2] ?? '');
    if (v4 === undefined) return;
    t = `${embedded[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = t.split('::');
  if (halves.length > 2) return;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return;
  return groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** Which way a request to `url` goes. Loopback first, then the scheme's proxy, then no_proxy. */
export function resolveRoute(settings: ProxySettings, url: URL): Route {
  const host = normaliseHost(url.hostname);
  if (isLoopbackHost(host) || isMappedLoopback(host)) return { kind: 'direct', why: 'loopback' };
  const proxy =
    url.protocol === 'https:'
      ? settings.https
      : url.protocol === 'http:'
        ? settings.http
        : undefined;
  if (proxy === undefined) return { kind: 'direct', why: 'no proxy set' };
  const port = url.port === '' ? (DEFAULT_PORT[url.protocol] ?? 0) : Number(url.port);
  const bypass = settings.noProxy.find((rule) => matches(rule, host, port));
  if (bypass !== undefined) return { kind: 'direct', why: `no_proxy ${bypass.text}` };
  return {
    kind: 'proxy',
    proxy: proxy.url,
    display: proxy.display,
    variable: proxy.variable,
    ...(proxy.credentials === undefined ? {} : { credentials: proxy.credentials }),
  };
}

function matches(rule: NoProxyRule, host: string, port: number): boolean {
  if (rule.kind === 'all') return true;
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.kind === 'cidr') {
    const address = parseIp(host);
    if (address === undefined || address.family !== rule.family) return false;
    const shift = BigInt((rule.family === 4 ? 32 : 128) - rule.bits);
    return address.value >> shift === rule.base >> shift;
  }
  // An address matches a name entry only whole: `1.1` is no domain of 10.0.1.1 (curl agrees;
  // issue #26's fuzzing against curl found the suffix match).
  if (parseIp(host) !== undefined) return host === rule.host;
  return host === rule.host || host.endsWith(`.${rule.host}`);
}

function normaliseHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

// `[::ffff:127.0.0.1]`, which the URL parser writes as `::ffff:7f00:1`: still this machine.
function isMappedLoopback(host: string): boolean {
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** The route line the UI prints (SEC-03: never a credential). */
export function describeRoute(route: Route): string {
  if (route.kind === 'proxy') return `via proxy ${route.display}`;
  return `direct (${route.why})`;
}
