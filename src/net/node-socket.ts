// The node's one WebSocket to Core (`sandbox-node/connect`, docs/node-protocol.md), with the
// node credential in `Authorization: Bearer` only. undici's WebSocket does not expose the status
// of a refused upgrade, so a failed open is reported as "not connected" and the caller asks the
// identity route whether Core still accepts the node (401 there = removed, NODE-02).
import { WebSocket, type Dispatcher } from 'undici';
import * as z from 'zod';

const coreMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    node_id: z.string(),
    target_generation: z.number().int().positive(),
    heartbeat_seconds: z.number().positive(),
  }),
  z.object({ type: z.literal('target'), generation: z.number().int().positive() }),
]);
export type CoreMessage = z.infer<typeof coreMessage>;

export type NodeMessage =
  | {
      type: 'hello';
      software: string;
      managed: boolean;
      serving_generation: number;
      provider_file_digest: string | null;
    }
  | { type: 'readiness'; provider_ready: boolean; code: string | null }
  | {
      type: 'rollout';
      generation: number;
      state: 'preparing' | 'ready' | 'failed';
      diagnostic: string | null;
    };

export interface SocketClose {
  code: number;
  reason: string;
}

export interface NodeSocket {
  send(message: NodeMessage): void;
  close(code?: number, reason?: string): void;
  /** Resolves once, when the connection ends for any reason. */
  readonly closed: Promise<SocketClose>;
}

export interface OpenOptions {
  coreOrigin: string;
  nodeId: string;
  credential: string;
  onMessage: (message: CoreMessage) => void;
  /** A message Core sent that this version does not understand (logged, not fatal). */
  onUnknown?: (type: string) => void;
  timeoutMs?: number;
  /** Stops a connection still opening (SIGTERM must not wait for the open's timeout). */
  signal?: AbortSignal;
  /** Always ours: undici's global one would leave TLS verification to Node's default (SEC-07). */
  dispatcher: Dispatcher;
}

export class SocketNotOpened extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SocketNotOpened';
  }
}

export function connectUrl(coreOrigin: string, nodeId: string): URL {
  const url = new URL('/api/v1/sandbox-node/connect', coreOrigin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('node_id', nodeId);
  return url;
}

export function openNodeSocket(options: OpenOptions): Promise<NodeSocket> {
  const ws = new WebSocket(connectUrl(options.coreOrigin, options.nodeId), {
    headers: { authorization: `Bearer ${options.credential}` },
    dispatcher: options.dispatcher,
  });
  const closed = new Promise<SocketClose>((resolve) => {
    ws.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason }));
  });
  ws.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') return;
    const parsed = parseCoreMessage(event.data);
    if (parsed.ok) options.onMessage(parsed.message);
    else options.onUnknown?.(parsed.type);
  });
  return new Promise((resolve, reject) => {
    const giveUp = (why: string) => {
      clearTimeout(timer);
      ws.close();
      reject(new SocketNotOpened(why));
    };
    const timer = setTimeout(() => giveUp('timed out'), options.timeoutMs ?? 15_000);
    const onAbort = () => giveUp('stopped');
    if (options.signal?.aborted === true) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    ws.addEventListener('open', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        send: (message) => ws.send(JSON.stringify(message)),
        close: (code = 1000, reason = '') => ws.close(code, reason),
        closed,
      });
    });
    void closed.then(({ code }) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new SocketNotOpened(code === 1006 ? 'refused or unreachable' : `closed with ${code}`));
    });
  });
}

function parseCoreMessage(
  text: string,
): { ok: true; message: CoreMessage } | { ok: false; type: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, type: '(not JSON)' };
  }
  const parsed = coreMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const type = (json as { type?: unknown } | null)?.type;
  return { ok: false, type: typeof type === 'string' ? type.slice(0, 40) : '(no type)' };
}
