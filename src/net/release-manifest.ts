// The release manifest's schema (docs/release-manifest.md). The builder checks what it writes
// with it, tests check releases with it, and the node side may import it to parse what it
// downloads (SEC-04: every manifest is parsed with a schema before use).
import * as z from 'zod';

const textEncoder = new TextEncoder();

/** `[0-9A-Za-z._-]{1,64}`: `<package version>-<first 12 hex of the executable's SHA-256>`. */
export const releaseIdSchema = z.string().regex(/^[0-9A-Za-z._-]{1,64}$/, 'bad release ID');

// SEC-04: a manifest name becomes a path on the node, so it must stay one plain file name.
// "." and "" are not file names either; ".." anywhere is refused, as the doc says.
export const fileNameSchema = z
  .string()
  .min(1)
  .refine((name) => !name.includes('/'), 'file name contains "/"')
  .refine((name) => !name.includes('..'), 'file name contains ".."')
  .refine((name) => !name.includes('\u0000'), 'file name contains NUL')
  // A lone surrogate is no UTF-8: written as U+FFFD on disk or in a bundle's header, two names
  // would become one file (issue #26, found by test/unit/fuzz-tar-header.test.ts).
  .refine((name) => !/[\uD800-\uDFFF]/u.test(name), 'file name is not UTF-8 (a lone surrogate)')
  .refine((name) => name !== '.', 'file name is "."')
  .refine((name) => textEncoder.encode(name).length <= 255, 'file name longer than 255 bytes');

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'not 64 lowercase hex digits');
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'not sha256:<64 lowercase hex>');
const size = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

// Docker's reference grammar without a registry host: path components, then a tag.
const imageReference = z
  .string()
  .regex(
    /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/,
    'not an image reference NAME:TAG',
  );

const common = { name: fileNameSchema, size, sha256: sha256Hex };

export const imageSchema = z.strictObject({
  reference: imageReference,
  /** `sha256:` + config digest: `docker image inspect --format '{{.Id}}'` on the classic store. */
  id: digest,
  /** Bytes the unpacked layers take at most, for the free-disk check (PRE-07). */
  unpacked_size: size,
  /** `sha256:` + OCI manifest digest: the Id Docker's containerd image store reports. */
  manifest_digest: digest.optional(),
});

// Each kind belongs to one provider (the doc's table), so the pair is checked together.
export const releaseFileSchema = z.discriminatedUnion('kind', [
  z.strictObject({ ...common, kind: z.literal('node-program'), provider: z.literal('any') }),
  z.strictObject({
    ...common,
    kind: z.literal('runtime-image'),
    // Both providers import it: Docker with `docker load`, microsandbox into its store.
    provider: z.literal('any'),
    image: imageSchema,
  }),
  z.strictObject({
    ...common,
    kind: z.literal('microsandbox-runtime'),
    provider: z.literal('microsandbox'),
  }),
  z.strictObject({
    ...common,
    kind: z.literal('microsandbox-firmware'),
    provider: z.literal('microsandbox'),
  }),
  z.strictObject({
    ...common,
    kind: z.literal('microsandbox-helper'),
    provider: z.literal('microsandbox'),
  }),
]);

export const releaseManifestSchema = z.strictObject({
  format: z.literal(1),
  release: releaseIdSchema,
  created_at: z.iso.datetime(),
  files: z
    .array(releaseFileSchema)
    .min(1)
    .refine((files) => new Set(files.map((f) => f.name)).size === files.length, {
      message: 'file names are not unique',
    }),
});

export type ReleaseManifest = z.infer<typeof releaseManifestSchema>;
export type ReleaseFile = z.infer<typeof releaseFileSchema>;
export type ReleaseFileKind = ReleaseFile['kind'];
