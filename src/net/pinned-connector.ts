// TRUST-01: connections to a pinned Core origin. Two handshakes per connection:
//   1. discovery: a TLS handshake that verifies nothing and on which nothing is ever written;
//      it only reads the certificates the server presents and picks the one with the pinned key
//      (none: the connection is refused, before any request, so before any token or credential);
//   2. the connection itself, verified by OpenSSL as any other, with that one certificate as the
//      only trust anchor (a partial chain, so a pinned intermediate or server key works too), and
//      the host name checked as usual.
// The anchor is kept for the connector's next connections and looked for again after any failure
// (a renewed chain under the same key). Through a proxy both handshakes ride a CONNECT tunnel.
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import type { LookupFunction } from 'node:net';
import { buildConnector, Client } from 'undici';
import { oacError } from '../messages.ts';
import { connectFailure } from './connect-failure.ts';
import { pinnedCertificate, type CorePin } from './core-pin.ts';

export interface Target {
  /** As in the URL: an IPv6 address keeps its brackets. */
  hostname: string;
  port: number;
}

/** A byte stream to the target: a TCP connection, or a tunnel through a proxy. */
export interface StreamOpener {
  open(target: Target): Promise<Duplex>;
  close(): Promise<void>;
}

export interface PinnedConnectorOptions {
  origin: string;
  pin: CorePin;
  streams: StreamOpener;
  timeoutMs: number;
}

const CLOSED_EARLY = 'the connection closed before it was established';
export const TUNNEL_REFUSED = 'the proxy closed the connection instead of opening a tunnel';

export function pinnedConnector(o: PinnedConnectorOptions): buildConnector.connector {
  let anchor: Promise<string> | undefined;
  const connectOnce = async (target: Target): Promise<TLSSocket> => {
    anchor ??= discoverAnchor(o, target);
    const pending = anchor;
    try {
      const ca = await pending;
      const stream = await o.streams.open(target);
      return await handshake(stream, target, o.timeoutMs, {
        ca: [ca],
        allowPartialTrustChain: true,
        rejectUnauthorized: true,
      });
    } catch (error) {
      if (anchor === pending) anchor = undefined;
      throw error;
    }
  };
  return (opts, callback) => {
    const target = { hostname: opts.hostname, port: Number(opts.port) || 443 };
    connectOnce(target).then(
      (socket) => callback(null, socket),
      // Never an error undici reconnects on at once (connect-failure.ts, issue #27.1).
      (error: unknown) => callback(connectFailure(error, CLOSED_EARLY), null),
    );
  };
}

async function discoverAnchor(o: PinnedConnectorOptions, target: Target): Promise<string> {
  // Verification off on purpose: this handshake only reads what the server presents, and the
  // socket is destroyed before anything is written to it.
  const socket = await handshake(await o.streams.open(target), target, o.timeoutMs, {
    rejectUnauthorized: false,
  });
  let chain: Buffer[];
  try {
    chain = presentedChain(socket);
  } finally {
    socket.destroy();
  }
  const found = pinnedCertificate(chain, o.pin);
  if ('pem' in found) return found.pem;
  const details = found.presented.map(
    (pin, i) => `${i === 0 ? 'server certificate' : `CA certificate ${i}`}: ${pin}`,
  );
  throw oacError('core_pin_mismatch', { origin: o.origin, pin: o.pin }, { details });
}

/** The certificates the server presented, leaf first, each once. */
function presentedChain(socket: TLSSocket): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<string>();
  let certificate: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (certificate?.raw !== undefined && !seen.has(certificate.fingerprint256)) {
    seen.add(certificate.fingerprint256);
    chain.push(certificate.raw);
    certificate = certificate.issuerCertificate;
  }
  return chain;
}

type HandshakeTls = {
  rejectUnauthorized: boolean;
  ca?: string[];
  allowPartialTrustChain?: boolean;
};

function handshake(
  stream: Duplex,
  target: Target,
  timeoutMs: number,
  tls: HandshakeTls,
): Promise<TLSSocket> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    let socket: TLSSocket;
    try {
      socket = tlsConnect({
        socket: stream,
        host, // what the server's certificate is checked against
        ...(isIP(host) === 0 ? { servername: host } : {}), // SNI carries names only (RFC 6066)
        ...tls,
      });
    } catch (error) {
      stream.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      stream.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error('TLS handshake timed out')), timeoutMs);
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}

/** Plain TCP, as undici's own connector makes it (timeouts, keep-alive, the test resolver). */
export function directStreams(timeoutMs: number, lookup?: LookupFunction): StreamOpener {
  const plain = buildConnector({
    timeout: timeoutMs,
    allowH2: false,
    ...(lookup === undefined ? {} : { lookup }),
  });
  return {
    open: (t) =>
      new Promise<Duplex>((resolve, reject) =>
        plain(
          {
            hostname: t.hostname,
            host: `${t.hostname}:${t.port}`,
            protocol: 'http:',
            port: `${t.port}`,
          },
          (error, socket) => (error === null ? resolve(socket as Socket) : reject(error)),
        ),
      ),
    close: () => Promise.resolve(),
  };
}

/** A CONNECT tunnel through `proxy` (its origin; credentials only as the header). */
export function tunnelStreams(
  proxy: URL,
  authorization: string | undefined,
  proxyTls: object,
  timeoutMs: number,
): StreamOpener {
  let client: Client | undefined;
  return {
    async open(t) {
      client ??= new Client(proxy.origin, {
        connect: { timeout: timeoutMs, ...(proxy.protocol === 'https:' ? proxyTls : {}) },
      });
      const authority = `${t.hostname}:${t.port}`;
      const tunnel: Promise<{ socket: Duplex; statusCode: number }> = client.connect({
        path: authority,
        signal: AbortSignal.timeout(timeoutMs), // a proxy that never answers CONNECT
        headers: {
          host: authority,
          ...(authorization === undefined ? {} : { 'proxy-authorization': authorization }),
        },
      });
      const { socket, statusCode } = await tunnel.catch((error: unknown) => {
        throw connectFailure(error, TUNNEL_REFUSED);
      });
      if (statusCode !== 200) {
        socket.destroy();
        // The status in the text: a 407 reads as the proxy's refusal (download-errors.ts).
        throw new Error(`the proxy answered ${statusCode} to CONNECT`);
      }
      return socket;
    },
    close: () => client?.close() ?? Promise.resolve(),
  };
}
