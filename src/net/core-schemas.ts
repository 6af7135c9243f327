// zod shapes of the sandbox-node routes of spec/machine-api.md. Answers from Core are input
// from outside and are parsed before use (SEC-04). Unknown fields in Core's answers are dropped
// (a newer Core may add some); the enrollment body we send is strict: exactly the documented
// fields (ENR-03).
import * as z from 'zod';

/** Canonical UUID: lowercase hex, 8-4-4-4-12, as the machine API requires for node IDs. */
export const canonicalUuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a canonical UUID');

/** An enrollment token as Core issues it (URL-safe, 16 to 512 characters): the one schema the
 *  one-line command and the installer's stdin check a token against (SEC-04). */
export const enrollmentToken = z.string().regex(/^[A-Za-z0-9._~-]{16,512}$/);

/** A node credential: 32 to 256 non-whitespace characters. */
// "Non-whitespace" read as printable ASCII without space: the credential travels in a header,
// and the reference Core reads it the same way.
export const nodeCredential = z
  .string()
  .regex(/^[\x21-\x7e]{32,256}$/, '32 to 256 non-whitespace ASCII characters');

export const provider = z.enum(['docker', 'microsandbox']);
export type Provider = z.infer<typeof provider>;

const count = z.number().int().nonnegative();
const generation = z.number().int().positive();
const digest = z.string().min(1).max(200);

export const nodeConfiguration = z.object({
  installation_id: z.string().min(1).max(200),
  provider,
  core_url: z.string().url(),
  generation,
  specification: z.record(z.string(), z.unknown()),
  specification_digest: digest,
  max_active: count,
  max_retained: count,
});
export type NodeConfiguration = z.infer<typeof nodeConfiguration>;

export const enrollRequest = z.strictObject({
  node_id: canonicalUuid,
  credential: nodeCredential,
  name: z.string().min(1).max(200),
  provider,
  backend_fingerprint: z.string().min(1).max(200),
  deployment_generation: generation,
  specification_digest: digest,
  core_url: z.string().url(),
});
export type EnrollRequest = z.infer<typeof enrollRequest>;

export const nodeIdentity = z.object({
  node_id: canonicalUuid,
  installation_id: z.string().min(1).max(200),
  provider,
  deployment_generation: generation,
  specification_digest: digest,
  max_active: count,
  max_retained: count,
});
export type NodeIdentity = z.infer<typeof nodeIdentity>;

export const nodeIdentityView = nodeIdentity.extend({
  connected: z.boolean(),
  provider_ready: z.boolean(),
});
export type NodeIdentityView = z.infer<typeof nodeIdentityView>;

/** Error body of the node routes: {"error": {"code", "message"?, "param"?}}. */
export const coreErrorBody = z.object({
  error: z.object({
    code: z.string().max(100),
    message: z.string().max(1000).optional(),
    param: z.string().max(100).optional(),
  }),
});
