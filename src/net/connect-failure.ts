// Issue #27.1: undici (7.x, the last line for Node 20) reads a connection error whose code is
// UND_ERR_SOCKET or UND_ERR_INFO as "a running request's socket dropped" and connects again at
// once, keeping the request queued. A proxy that reads CONNECT and closes the socket without a
// status line (what many do when they cannot reach the upstream) raises exactly that error in
// the tunnel, so every command reconnected about 1,400 times a second, forever, printing nothing
// (undici issue 3897; its fix, ProxyConnectionError, is in undici 8 only, which needs Node 22).
// Every connector of ours hands undici its failures through connectFailure(): those two codes
// become a ConnectFailed of ours, and undici fails the queued request with it instead.
import type { buildConnector } from 'undici';

/** A connection that could not be made; undici fails the request with it, never retries it. */
export class ConnectFailed extends Error {
  readonly code = 'OAC_CONNECT_FAILED';
  constructor(reason: string, cause?: unknown) {
    super(reason, { cause });
    this.name = 'ConnectFailed';
  }
}

const RECONNECTED_AT_ONCE = new Set(['UND_ERR_SOCKET', 'UND_ERR_INFO']);

/** The error to hand undici's connect callback: one it never retries on its own. */
export function connectFailure(error: unknown, reason: string): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && RECONNECTED_AT_ONCE.has(code))
    return new ConnectFailed(reason, error);
  return error instanceof Error ? error : new Error(String(error));
}

/** `connect` with its failures passed through connectFailure(). */
export function settlingConnector(
  connect: buildConnector.connector,
  reason: string,
): buildConnector.connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error === null || error === undefined) callback(null, socket);
      else callback(connectFailure(error, reason), null);
    });
}
