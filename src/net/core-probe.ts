// Whether Core answers, how long it takes, and how far this host's clock is from Core's (issue
// #40: the support bundle's core.json). One GET of Core's origin through the dispatcher every
// request of the node's uses (its proxy settings, its pin: TRUST-01); any HTTP answer counts as
// an answer (no route of Core's is asked, no credential sent).
import { request } from 'undici';
import type { Dispatcher } from 'undici';

export interface CoreProbe {
  answered: boolean;
  /** Core's HTTP status, when it answered. */
  status?: number;
  /** From the request to the answer's headers (connection and TLS included), milliseconds. */
  milliseconds: number;
  /** Core's clock minus this host's, from its Date header (seconds; ±1 s of Date's grain). */
  clock_offset_seconds?: number;
  /** Why it did not answer (a refused connection, a pin that did not match, a timeout …). */
  error?: string;
}

export async function probeCore(origin: string, dispatcher: Dispatcher): Promise<CoreProbe> {
  const started = Date.now();
  try {
    const r = await request(new URL('/', origin), {
      method: 'GET',
      dispatcher,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const milliseconds = Date.now() - started;
    await r.body.dump();
    const date = Date.parse(String(r.headers.date ?? ''));
    const offset = Number.isNaN(date) ? undefined : Math.round((date - Date.now()) / 1000);
    return {
      answered: true,
      status: r.statusCode,
      milliseconds,
      ...(offset === undefined ? {} : { clock_offset_seconds: offset }),
    };
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { answered: false, milliseconds: Date.now() - started, error: reason.slice(0, 300) };
  }
}
