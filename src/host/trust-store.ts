// The host's own certificate authorities (SEC-01): the bundle the distribution builds from its
// trust store (update-ca-certificates, update-ca-trust), which curl in the pasted line also
// uses. Node's TLS trusts only the roots compiled into it; an operator who added a private CA to
// the host would see the line download the installer and the installer then refuse Core's
// certificate. Fixed root-owned paths only: SSL_CERT_FILE and SSL_CERT_DIR are cleared before
// any of our code runs (SEC-07).
import { readFileSync, statSync } from 'node:fs';

/** Debian and Ubuntu; Fedora and RHEL; openSUSE; Alpine and Arch. */
const BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
];
/** A distribution's bundle is about 200 KiB; anything far larger is no bundle of ours to read. */
const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

let cached: { pem: string | undefined } | undefined;

/** The first bundle that exists, as PEM text; undefined on a host without one. */
export function systemCaBundle(): string | undefined {
  cached ??= { pem: readFirstBundle() };
  return cached.pem;
}

function readFirstBundle(): string | undefined {
  for (const path of BUNDLES) {
    try {
      const stats = statSync(path);
      if (!stats.isFile() || stats.size > MAX_BUNDLE_BYTES) continue;
      const pem = readFileSync(path, 'utf8');
      if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
    } catch {
      // Not this distribution's path.
    }
  }
  return undefined;
}
