// The typed client of Core's sandbox-node routes (spec/machine-api.md). Credentials travel only
// in `Authorization: Bearer`, never in a URL; every answer is parsed with its zod shape; every
// documented error becomes one CoreError. Connection failures, 500, 502, 503 and 504 are
// retried with backoff (CoreError.retryable), a 4xx never is.
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import { message } from '../messages.ts';
import { CoreError, coreErrorFromResponse, type CredentialKind } from './core-errors.ts';
import {
  enrollRequest,
  nodeConfiguration,
  nodeIdentity,
  nodeIdentityView,
  type EnrollRequest,
  type NodeConfiguration,
  type NodeIdentity,
  type NodeIdentityView,
} from './core-schemas.ts';
import { NetworkError, isCertificateReason, sendJson, type JsonRequest } from './http-json.ts';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.ts';
import { parseServiceUrl } from './url-policy.ts';

export type CoreAuth =
  { kind: 'token'; token: string } | { kind: 'node'; nodeId: string; credential: string };

export interface CoreClientOptions {
  coreUrl: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Ends every request of this client at once (run's SIGTERM). */
  signal?: AbortSignal;
}

const API = '/api/v1/sandbox-node';

export class CoreClient {
  readonly origin: string;
  private readonly options: CoreClientOptions;

  constructor(options: CoreClientOptions) {
    this.origin = parseServiceUrl(options.coreUrl, 'The Core URL').origin;
    this.options = options;
  }

  /** Reads the node configuration; with a token it does not consume it (ENR-01). */
  readConfiguration(auth: CoreAuth, generation?: number): Promise<NodeConfiguration> {
    const url = this.url('configuration');
    if (generation !== undefined) url.searchParams.set('generation', String(generation));
    return this.call('GET', url, auth, nodeConfiguration);
  }

  /** Registers the node and consumes the token; the body has exactly the documented fields. */
  enroll(token: string, body: EnrollRequest): Promise<NodeIdentity> {
    const checked = enrollRequest.parse(body);
    return this.call('POST', this.url('enroll'), { kind: 'token', token }, nodeIdentity, checked);
  }

  /** The node's identity plus Core's current view (connected, provider_ready). */
  identity(nodeId: string, credential: string): Promise<NodeIdentityView> {
    const url = this.url('identity');
    url.searchParams.set('node_id', nodeId);
    return this.call('GET', url, { kind: 'node', nodeId, credential }, nodeIdentityView);
  }

  private url(route: string): URL {
    return new URL(`${API}/${route}`, this.origin);
  }

  private call<S extends z.ZodType>(
    method: JsonRequest['method'],
    url: URL,
    auth: CoreAuth,
    shape: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const route = `${method} ${url.pathname}`;
    const request: JsonRequest = {
      method,
      url,
      headers: authHeaders(auth),
      body,
      timeoutMs: this.options.timeoutMs,
      dispatcher: this.options.dispatcher,
      signal: this.options.signal,
    };
    const once = async (): Promise<z.infer<S>> => {
      const response = await this.exchange(route, request);
      if (response.status < 200 || response.status > 299) {
        throw coreErrorFromResponse({ route, ...response, credential: credentialKind(auth) });
      }
      const parsed = shape.safeParse(response.body);
      if (!parsed.success) {
        const detail = parsed.error.issues[0]?.path.join('.') || (response.unparsed ?? 'not JSON');
        throw new CoreError(
          'core_invalid_response',
          message('core_invalid_response', { route, detail }),
          response.status,
        );
      }
      return parsed.data;
    };
    const retryable = (error: unknown) => error instanceof CoreError && error.retryable;
    return withRetry(this.options.retry ?? DEFAULT_RETRY, retryable, once);
  }

  private async exchange(route: string, request: JsonRequest) {
    try {
      return await sendJson(request);
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      // A certificate the host does not trust is no network problem: its hint names the pin.
      const code = isCertificateReason(error.reason)
        ? 'core_certificate_untrusted'
        : 'core_unreachable';
      const text = message(code, { origin: this.origin, reason: error.reason });
      throw new CoreError(code, `${text} (${route})`);
    }
  }
}

function authHeaders(auth: CoreAuth): Record<string, string> {
  if (auth.kind === 'token') return { authorization: `Bearer ${auth.token}` };
  return { authorization: `Bearer ${auth.credential}`, 'x-oac-node-id': auth.nodeId };
}

function credentialKind(auth: CoreAuth): CredentialKind {
  return auth.kind;
}
