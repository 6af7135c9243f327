// SEC-01, SEC-07: TLS verification is set on every connection, never left to Node's default,
// which NODE_TLS_REJECT_UNAUTHORIZED=0 turns off for any connection that does not say.
export const STRICT_TLS = { rejectUnauthorized: true } as const;
export type StrictTls = typeof STRICT_TLS;
