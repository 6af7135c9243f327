// Maps every documented error of the node routes (spec/machine-api.md, "Errors of the node
// routes") to one typed CoreError carrying our code and the guide's one-line message.
import { OacError } from '../errors.ts';
import { hint, message, type MessageCode } from '../messages.ts';
import { coreErrorBody } from './core-schemas.ts';

/** Which secret the refused request carried: the 401 means different things for each. */
export type CredentialKind = 'token' | 'node';

export class CoreError extends OacError {
  readonly status: number | undefined; // undefined: Core never answered
  readonly coreCode: string | undefined;
  readonly param: string | undefined;

  constructor(code: MessageCode, text: string, status?: number, coreCode?: string, param?: string) {
    super(code, text, { hint: hint(code) });
    this.name = 'CoreError';
    this.status = status;
    this.coreCode = coreCode;
    this.param = param;
  }

  /** Connection failures, 503, and 500, 502 and 504 are worth another try; a 4xx never is
   *  (issue #2). */
  get retryable(): boolean {
    if (this.code === 'core_certificate_untrusted') return false; // the same answer each time
    // REL-01: a 500, 502 or 504 is Core (or the proxy before it) failing for a moment, as a
    // closed connection is. The reads are GETs; a repeated enrollment whose first answer was
    // lost is refused (the token is spent) and then found enrolled (register.ts asks Core for
    // the node's identity: ENR-02).
    return this.status === undefined || this.status === 503 || this.code === 'core_server_error';
  }
}

interface Refusal {
  route: string;
  status: number;
  body: unknown;
  credential: CredentialKind;
}

export function coreErrorFromResponse({ route, status, body, credential }: Refusal): CoreError {
  const parsed = coreErrorBody.safeParse(body);
  const coreCode = parsed.success ? parsed.data.error.code : undefined;
  const param = parsed.success ? parsed.data.error.param : undefined;
  const detail = parsed.success ? (parsed.data.error.message ?? coreCode ?? '') : '';
  const ours = ourCode(status, coreCode, param, credential);
  if (ours === undefined && TRANSIENT.has(status)) {
    const text = message('core_server_error', { status, route });
    return new CoreError('core_server_error', text, status, coreCode, param);
  }
  if (ours === undefined) {
    return new CoreError(
      'core_unexpected_response',
      message('core_unexpected_response', { status, route }),
      status,
      coreCode,
      param,
    );
  }
  const text = message(ours, { route, detail: oneLine(detail) });
  return new CoreError(ours, text, status, coreCode, param);
}

/** Core (or a proxy in front of it) failing for a moment: an internal error, a bad gateway, a
 *  gateway timeout. Other 5xx (501, 505, 511) are no passing fault: said as they are. */
const TRANSIENT = new Set([500, 502, 504]);

function ourCode(
  status: number,
  coreCode: string | undefined,
  param: string | undefined,
  credential: CredentialKind,
): MessageCode | undefined {
  switch (`${status} ${coreCode}`) {
    case '400 invalid_request_error':
      return param === 'core_url' ? 'core_url_required' : 'core_refused_request';
    case '400 invalid_request':
      return 'core_refused_request';
    case '401 invalid_node_credential':
      return credential === 'token' ? 'enrollment_token_refused' : 'node_credential_refused';
    case '409 sandbox_specification_mismatch':
      return 'specification_changed';
    case '409 sandbox_node_address_mismatch':
      return 'core_url_changed';
    case '409 idempotency_conflict':
      return 'node_id_taken';
    case '409 sandbox_reset_in_progress':
      return 'reset_in_progress';
    case '503 runtime_node_unavailable':
      return 'core_not_ready';
    default:
      // Without the documented body (a reverse proxy answering for Core), the status alone
      // still says what happened.
      if (status === 401)
        return credential === 'token' ? 'enrollment_token_refused' : 'node_credential_refused';
      return status === 503 ? 'core_not_ready' : undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
