// TRUST-01: Core's TLS key pin, `sha256:<hex>` of a certificate's SubjectPublicKeyInfo (DER), as
// kubeadm's --discovery-token-ca-cert-hash. Which certificate: any one in the chain Core's server
// presents; we recommend its CA (it outlives every renewal of the server certificate:
// docs/private-ca.md). A pinned origin trusts that key alone, never the host's store; origins
// without a pin keep the host's store (SEC-01).
import { createHash, X509Certificate } from 'node:crypto';
import * as z from 'zod';
import { UsageError } from '../errors.ts';

export const corePin = z.string().regex(/^sha256:[0-9a-f]{64}$/);
export type CorePin = z.infer<typeof corePin>;

/** `--core-pin none`: drop a recorded pin (the host's trust store from now on). */
export const NO_PIN = 'none';

/** The command line's pin for an https Core, or one line saying what to fix (exit 64). */
export function parseCorePin(value: string, coreOrigin: string): CorePin {
  if (!corePin.safeParse(value).success)
    throw new UsageError(
      "--core-pin must be sha256: and 64 lowercase hexadecimal digits (the SHA-256 of Core's CA public key, as Web prints it), or none",
    );
  if (!coreOrigin.startsWith('https:'))
    throw new UsageError('--core-pin goes with an https Core URL (plain http has no key to pin)');
  return value;
}

/** `sha256:<hex>` of the certificate's SubjectPublicKeyInfo. */
export function pinOf(certificate: X509Certificate): CorePin {
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** The presented certificate (DER, leaf first) whose key is the pinned one, as PEM; else the
 *  pins of what was presented (public values: they name the keys to choose from). */
export function pinnedCertificate(
  chain: readonly Buffer[],
  pin: CorePin,
): { pem: string } | { presented: CorePin[] } {
  const presented: CorePin[] = [];
  for (const der of chain) {
    const certificate = new X509Certificate(der);
    const its = pinOf(certificate);
    if (its === pin) return { pem: certificate.toString() };
    presented.push(its);
  }
  return { presented };
}

// The process's pins, by origin (`https://host:port`). Set once by the command that learns the
// pin (install's --core-pin, or the node's recorded identity) before it talks to Core; every
// dispatcher of the process reads it, so no request to that origin can miss it.
const pins = new Map<string, CorePin>();

/** From now on, this process trusts exactly `pin` for `origin` (null: the host's store). */
export function pinOrigin(origin: string, pin: CorePin | null | undefined): void {
  const key = new URL(origin).origin;
  if (pin === null || pin === undefined) pins.delete(key);
  else pins.set(key, pin);
}

export function processPins(): ReadonlyMap<string, CorePin> {
  return pins;
}
