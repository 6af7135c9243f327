// What the installer (root) hands to `oac-node _prepare`, the part of the install that runs as
// oac-node in its own session without a terminal (HOST-08). It arrives on stdin, never in argv
// or the environment, because it carries the enrollment token (BOOT-05, SEC-03).
import * as z from 'zod';
import { enrollmentToken, nodeConfiguration } from '../net/core-schemas.ts';
import { isInstallationId } from '../layout.ts';
import { corePin } from '../net/core-pin.ts';
import { releaseManifestSchema } from '../net/release-manifest.ts';
import { HOST_ID_PATTERN } from './host-id.ts';

export const prepareRequest = z
  .strictObject({
    installation_id: z
      .string()
      .refine((v): boolean => isInstallationId(v), 'not an installation ID (SEC-10)'),
    core_url: z.string().url(),
    /** TRUST-01: the pin of Core's TLS key, or null for the host's trust store. */
    core_pin: corePin.nullable().default(null),
    console_url: z.string().url(),
    name: z.string().min(1).max(200),
    token: enrollmentToken.nullable(),
    configuration: nodeConfiguration,
    state_dir: z.string().startsWith('/'),
    /** microsandbox: the store /var/lib/oac-node/.oac/m (HOST-04), as this host maps it. */
    store_dir: z.string().startsWith('/'),
    /** microsandbox: the shared checkpoint store of --checkpoint-root, or null (HOST-11). */
    checkpoint_root: z.string().startsWith('/').nullable(),
    docker_host: z.string().regex(/^unix:\/\/\/\S+$/),
    proxy_env: z.record(z.string(), z.string()),
    /** OFFLINE-01: the release comes from the bundle open as this descriptor, not the console. */
    bundle: z
      .strictObject({
        fd: z.number().int().min(3).max(9),
        /** The bundle's path on the host, for messages only (the node half never opens it). */
        label: z.string().min(1).max(4096),
        /** The manifest root checked (its SHA-256, release and every file): the one used. */
        manifest: releaseManifestSchema,
      })
      .nullable()
      .default(null),
    /** OFFLINE-01: only stage the bundle's release for the node's rollout (src/node/staged.ts). */
    stage: z.boolean().default(false),
    /** Probe and plan only: print what would change (install --dry-run, and the installer's probe). */
    dry_run: z.boolean().default(false),
    /** Issue #40: this host's ID, as root read it (src/node/host-id.ts); null: the host has none. */
    host_id: z.string().regex(HOST_ID_PATTERN).nullable().default(null),
    /** Issue #40: the operator confirmed that a node recorded with another host ID is this one's. */
    same_host: z.boolean().default(false),
  })
  // SEC-04: the configuration the installer checked is the installation's own.
  .refine((r) => r.configuration.installation_id === r.installation_id, {
    path: ['configuration', 'installation_id'],
    message: 'not the installation_id of the request',
  });
export type PrepareRequest = z.infer<typeof prepareRequest>;
