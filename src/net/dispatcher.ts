// The one undici dispatcher of the program (docs/design.md "Network"): built once from a snapshot of
// the six proxy variables, it routes EVERY request on its own with our resolver (proxy-env.ts):
// a plain Agent for direct requests, or a cached ProxyAgent per proxy. Routing per request, not
// per download, matters after redirects: a dispatcher chosen once kept using the proxy after a
// redirect to a no_proxy host (docs/downloads.md).
//
// TLS verification is always on (SEC-01). `ca` and `lookup` exist for tests only: a test CA for
// a local https server, and a resolver that maps test names to loopback without any DNS query.
// A pinned origin (TRUST-01, core-pin.ts) is reached through a connector of its own that trusts
// exactly the pinned key, directly or through the same proxy (pinned-connector.ts).
import type { LookupFunction } from 'node:net';
import { Agent, Client, Dispatcher, Pool, ProxyAgent, buildConnector } from 'undici';
import { settlingConnector } from './connect-failure.ts';
import { STRICT_TLS, hostTls, type StrictTls } from './tls.ts';
import { processPins, type CorePin } from './core-pin.ts';
import {
  TUNNEL_REFUSED,
  directStreams,
  pinnedConnector,
  tunnelStreams,
  type StreamOpener,
} from './pinned-connector.ts';
import { redactor as processRedactor, type Redactor } from '../redact.ts';
import {
  describeRoute as routeLine,
  parseProxyEnv,
  proxyEnvFrom,
  resolveRoute,
  type ProxyEnv,
  type ProxySettings,
  type Route,
} from './proxy-env.ts';

export interface DispatcherOptions {
  /** The proxy variables; default: the six names of process.env, read now, once. */
  env?: ProxyEnv;
  /** Tests only: extra trusted CA certificates (PEM). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Tests only: how host names are resolved (never DNS for test names). */
  lookup?: LookupFunction;
  connectTimeoutMs?: number;
  /** Where proxy credentials are registered for redaction (SEC-03); default the process's. */
  redactor?: Redactor;
  /** Pinned origins (TRUST-01); default: the process's (core-pin.ts pinOrigin), read per request. */
  pins?: ReadonlyMap<string, CorePin>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export class RoutingDispatcher extends Dispatcher {
  readonly settings: ProxySettings;
  private readonly direct: Agent;
  private readonly proxies = new Map<string, ProxyAgent>();
  private readonly pinned = new Map<string, { agent: Agent; streams: StreamOpener }>();
  private readonly options: DispatcherOptions;

  constructor(options: DispatcherOptions = {}) {
    super();
    this.options = options;
    // Parsing first: a bad variable fails here, before any request (one OacError naming it).
    this.settings = parseProxyEnv(options.env ?? proxyEnvFrom(process.env));
    const redactor = options.redactor ?? processRedactor;
    for (const proxy of [this.settings.http, this.settings.https]) {
      if (proxy?.credentials === undefined) continue;
      const { username, password } = proxy.credentials;
      redactor.add(password);
      redactor.add(`${username}:${password}`);
      redactor.add(basicToken(username, password));
    }
    this.direct = new Agent({ connect: this.directConnector() });
  }

  /** Which way a request to `url` goes. */
  route(url: URL | string): Route {
    return resolveRoute(this.settings, typeof url === 'string' ? new URL(url) : url);
  }

  /** The route line for the UI: `via proxy http://***@host:port`, `direct (loopback)`, … */
  describeRoute(url: URL | string): string {
    return routeLine(this.route(url));
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
    const origin = options.origin;
    if (origin === undefined) throw new TypeError('a request without an origin cannot be routed');
    const url = new URL(String(origin));
    const pin = url.protocol === 'https:' ? this.pins().get(url.origin) : undefined;
    const route = this.route(url);
    const dispatcher =
      pin === undefined ? this.dispatcherFor(route) : this.pinnedFor(url.origin, pin, route);
    return dispatcher.dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closing = Promise.all([
      ...[this.direct, ...this.proxies.values()].map((d) => d.close()),
      ...[...this.pinned.values()].map((p) => p.agent.close().then(() => p.streams.close())),
    ]);
    const done = closing.then(() => undefined);
    if (callback === undefined) return done;
    void done.then(callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(
    errOrCallback?: Error | null | (() => void),
    callback?: () => void,
  ): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const cb = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const all = [this.direct, ...this.proxies.values()].map((d) => d.destroy(err));
    for (const p of this.pinned.values())
      all.push(p.agent.destroy(err).then(() => p.streams.close()));
    const done = Promise.all(all).then(() => undefined);
    if (cb === undefined) return done;
    void done.then(cb);
  }

  private dispatcherFor(route: Route): Dispatcher {
    if (route.kind === 'direct') return this.direct;
    const key = route.proxy.href;
    let agent = this.proxies.get(key);
    if (agent === undefined) {
      const tls = this.tls();
      const connectTimeout = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      agent = new ProxyAgent({
        uri: route.proxy.href, // never with credentials: they travel as a header only
        // Plain http as a forwarded request, https through CONNECT: proxies that allow CONNECT
        // only to 443 (squid's default, tinyproxy's ConnectPort) refuse a tunnel to port 80.
        proxyTunnel: false,
        connectTimeout,
        // Through a tunnel undici ignores `connect` and reads `requestTls` (recipe pitfall 2).
        requestTls: tls,
        proxyTls: tls,
        ...(route.credentials === undefined
          ? {}
          : { token: basicToken(route.credentials.username, route.credentials.password) }),
        factory: settlingPools,
        // The client that asks the proxy for the tunnel: a proxy that takes CONNECT and never
        // answers is given up after the connect timeout, not undici's 300 s for headers (the
        // request itself ends at its own deadline; this frees the socket and lets the process
        // exit).
        clientFactory: (origin: URL, options: object) =>
          new Pool(origin, {
            ...options,
            headersTimeout: connectTimeout,
            bodyTimeout: connectTimeout,
          }),
      });
      this.proxies.set(key, agent);
    }
    return agent;
  }

  private pins(): ReadonlyMap<string, CorePin> {
    return this.options.pins ?? processPins();
  }

  /** One agent per pinned origin, pin and route; its connector trusts the pin alone. */
  private pinnedFor(origin: string, pin: CorePin, route: Route): Dispatcher {
    const key = `${origin} ${pin} ${route.kind === 'direct' ? 'direct' : route.proxy.href}`;
    let entry = this.pinned.get(key);
    if (entry === undefined) {
      const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      const streams =
        route.kind === 'direct'
          ? directStreams(timeoutMs, this.options.lookup)
          : tunnelStreams(
              route.proxy,
              route.credentials === undefined
                ? undefined
                : basicToken(route.credentials.username, route.credentials.password),
              this.tls(),
              timeoutMs,
            );
      const agent = new Agent({ connect: pinnedConnector({ origin, pin, streams, timeoutMs }) });
      entry = { agent, streams };
      this.pinned.set(key, entry);
    }
    return entry.agent;
  }

  /** Plain connections never build the TLS context: parsing the host's CA bundle costs about
   *  50 ms, which a run that talks only plain http to loopback should not pay (issue #13). */
  private directConnector(): buildConnector.connector {
    const timeout = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const { lookup } = this.options;
    const plain = buildConnector({
      timeout,
      allowH2: false,
      ...(lookup === undefined ? {} : { lookup }),
    });
    let secure: buildConnector.connector | undefined;
    return (opts, callback) => {
      if (opts.protocol !== 'https:') return plain(opts, callback);
      secure ??= buildConnector({ timeout, allowH2: false, ...this.tls() });
      return secure(opts, callback);
    };
  }

  // SEC-01, SEC-07: verification on, said explicitly (src/net/tls.ts).
  private tls(): { ca?: DispatcherOptions['ca']; lookup?: LookupFunction } & StrictTls {
    const { ca, lookup } = this.options;
    return {
      // A `ca` of the caller's (tests) replaces the host's context rather than joining it.
      ...(ca === undefined ? hostTls() : { ...STRICT_TLS, ca }),
      ...(lookup === undefined ? {} : { lookup }),
    };
  }
}

/** undici's own pool factory, with the connector (ProxyAgent's tunnel) passed through
 *  settlingConnector: a proxy that closes the tunnel fails the request (issue #27.1). */
function settlingPools(origin: string | URL, options: object): Dispatcher {
  const o = options as Pool.Options & { connect?: unknown };
  const connect =
    typeof o.connect === 'function'
      ? settlingConnector(o.connect as buildConnector.connector, TUNNEL_REFUSED)
      : o.connect;
  const settled = { ...o, connect } as Pool.Options;
  return o.connections === 1 ? new Client(origin, settled) : new Pool(origin, settled);
}

// RFC 7617; a user without a password is sent as `user:`, as curl does (undici sends nothing).
function basicToken(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** The program's dispatcher, from the proxy variables of this moment. */
export function createDispatcher(options: DispatcherOptions = {}): RoutingDispatcher {
  return new RoutingDispatcher(options);
}

const shared = new Map<string, RoutingDispatcher>();

/**
 * One dispatcher per proxy environment for the whole process (DL-04: built once, routing per
 * request). Default: this process's own six variables, which for the node service come from
 * the root-only env file the installer wrote (HOST-06).
 */
export function sharedDispatcher(env: ProxyEnv = proxyEnvFrom(process.env)): RoutingDispatcher {
  const key = JSON.stringify(env);
  let dispatcher = shared.get(key);
  if (dispatcher === undefined) {
    dispatcher = createDispatcher({ env });
    shared.set(key, dispatcher);
  }
  return dispatcher;
}
