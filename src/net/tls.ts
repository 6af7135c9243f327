// SEC-01, SEC-07: TLS verification is set on every connection, never left to Node's default,
// which NODE_TLS_REJECT_UNAUTHORIZED=0 turns off for any connection that does not say. The
// authorities are the host's own (src/host/trust-store.ts), as for curl in the pasted line;
// Node's compiled-in roots only on a host without a bundle.
import { createSecureContext, type SecureContext } from 'node:tls';
import { systemCaBundle } from '../host/trust-store.ts';

export const STRICT_TLS = { rejectUnauthorized: true } as const;
export type StrictTls = typeof STRICT_TLS;

let context: { secureContext?: SecureContext } | undefined;

/** Verification on, against the host's certificate authorities: one context built once (a
 *  bundle is about 200 KiB; parsing it for every connection would cost each connection). */
export function hostTls(): StrictTls & { secureContext?: SecureContext } {
  if (context === undefined) {
    const ca = systemCaBundle();
    context = ca === undefined ? {} : { secureContext: createSecureContext({ ca }) };
  }
  return { ...STRICT_TLS, ...context };
}
