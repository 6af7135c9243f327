// The provider file (`--config`) of the node program: the fields the guide lists, parsed with
// one schema (SEC-04). Every violation is reported with its field path, then one exit.
// Its kind's module is src/node/drivers/provider-file.ts (a parallel pair,
// test/unit/file-names.test.ts).
import { parseOwnJson } from '../json-file.ts';
import { createHash } from 'node:crypto';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { oacError } from '../messages.ts';
import { canonicalJson } from '../canonical-json.ts';
import { isInstallationId } from '../layout.ts';

const absolutePath = z
  .string()
  .min(1)
  .refine((p) => isAbsolute(p) && !p.includes('\0'), 'must be an absolute path');
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
const positiveInt = z.number().int().positive();

const dockerAdapter = z.strictObject({
  host: z
    .string()
    .regex(
      /^unix:\/\/\/\S+$/,
      'must be an explicit unix socket, such as unix:///var/run/docker.sock',
    ),
  image: z.string().min(1).max(255),
  network: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be a Docker network name'),
  extra_hosts: z.array(z.string().regex(/^[^\s:]+:\S+$/, 'must be host:address')).default([]),
  seccomp_file: absolutePath,
  nested_sandbox: z.boolean(),
});

// microsandbox puts Unix sockets under runtime_home; a socket path has a 108-byte limit, so
// the guide caps the directory at 48 bytes.
const runtimeHome = absolutePath.refine(
  (p) => Buffer.byteLength(p) <= 48,
  'must be at most 48 bytes long',
);

const microsandboxAdapter = z.strictObject({
  helper_path: absolutePath,
  runtime_path: absolutePath,
  firmware_path: absolutePath,
  runtime_sha256: sha256Hex,
  firmware_sha256: sha256Hex,
  image: z.string().min(1).max(255),
  cpus: positiveInt,
  memory_mib: positiveInt,
  root_disk_mib: positiveInt,
  environment_disk_mib: positiveInt,
  network: z.enum(['public', 'none']),
  runtime_home: runtimeHome,
  /** Where checkpoints go: node-local by default, a shared store with --checkpoint-root
   *  (HOST-11). Optional: a manually registered node may leave it to microsandbox. */
  checkpoint_root: absolutePath.optional(),
});

const common = {
  // SEC-10: the ID names the unit and the state directory: the one rule of src/layout.ts.
  installation_id: z
    .string()
    .refine((v): boolean => isInstallationId(v), 'must be an installation ID (SEC-10)'),
  core_url: z.string().url(),
  generation: positiveInt,
  specification: z.record(z.string(), z.unknown()),
};

export const providerFile = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('docker'), ...common, adapter: dockerAdapter }),
  z.strictObject({ provider: z.literal('microsandbox'), ...common, adapter: microsandboxAdapter }),
]);
export type ProviderFile = z.infer<typeof providerFile>;
export type DockerAdapter = z.infer<typeof dockerAdapter>;
export type MicrosandboxAdapter = z.infer<typeof microsandboxAdapter>;

/** Parses the file's text; throws one OacError listing every violation with its path. */
export function parseProviderFile(text: string, source: string): ProviderFile {
  let raw: unknown;
  try {
    raw = parseOwnJson(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'not JSON';
    throw oacError('provider_file_invalid', { path: source, problem: `is not JSON: ${reason}` });
  }
  const parsed = providerFile.safeParse(raw);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`,
  );
  const count = lines.length === 1 ? '1 problem' : `${lines.length} problems`;
  throw oacError(
    'provider_file_invalid',
    { path: source, problem: `has ${count}:` },
    { details: lines },
  );
}

/** What the node approved at registration: the digest of every field of the file. */
export function providerFileDigest(file: ProviderFile): string {
  return `sha256:${createHash('sha256').update(canonicalJson(file)).digest('hex')}`;
}
