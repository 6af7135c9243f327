// SEC-01, SEC-07: TLS verification is set on every connection, never left to Node's default,
// which NODE_TLS_REJECT_UNAUTHORIZED=0 turns off for any connection that does not say. The
// authorities are the host's own (src/host/trust-store.ts), as for curl in the pasted line;
// Node's compiled-in roots only on a host without a bundle.
import { systemCaBundle } from '../host/trust-store.ts';

export const STRICT_TLS = { rejectUnauthorized: true } as const;
export type StrictTls = typeof STRICT_TLS;

/** Verification on, against the host's certificate authorities. */
export function hostTls(): StrictTls & { ca?: string } {
  const ca = systemCaBundle();
  return ca === undefined ? STRICT_TLS : { ...STRICT_TLS, ca };
}
