// Command-line values through a schema (issue #25): a bad value is a usage error (64) before
// anything happens, and a value the schema takes means one thing only.
import * as z from 'zod';
import { EXIT, UsageError } from '../errors.ts';
import { parseCoreUrl } from '../net/url-policy.ts';
import { escapeControls } from '../ui/printable.ts';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;
/** Seconds as a number (300) or with a unit (300s, 5m, 1h): at least 1 s, at most a day. */
const duration = z
  .string()
  .trim()
  .regex(/^\d{1,6}[smh]?$/)
  .transform((v) => Number(v.replace(/[smh]$/, '')) * UNIT_SECONDS[unitOf(v)])
  .pipe(z.number().int().min(1).max(86_400));

function unitOf(value: string): keyof typeof UNIT_SECONDS {
  const last = value.at(-1);
  return last === 'm' || last === 'h' ? last : 's';
}

/** The yargs option of a wait: read as text, so that `5m` is not yargs' NaN. */
export const timeoutOption = {
  type: 'string',
  default: '300',
  describe: 'How long to wait for the node to become ready: seconds (300), or 300s, 5m, 1h',
} as const;

/** The options several commands share, said one way (issue #38: one name per concept). */
export const jsonOption = {
  type: 'boolean',
  default: false,
  describe: 'Print NDJSON events',
} as const;
export const quietOption = {
  alias: 'q',
  type: 'boolean',
  default: false,
  describe: 'Print only what changes and the last line',
} as const;
export const planOutOption = {
  type: 'string',
  describe:
    'Save the plan to this file (0600) and change nothing; oac-node apply FILE applies exactly it',
} as const;
/** status and uninstall: the installation this host records, unless one is named. */
export const recordedIdOption = {
  type: 'string',
  describe: "The Core installation's ID (default: the one this host records)",
} as const;

export function parseTimeout(value: string | number, flag = '--timeout'): number {
  const parsed = duration.safeParse(String(value));
  if (parsed.success) return parsed.data;
  throw new UsageError(
    `${flag} takes seconds (300) or a duration such as 300s, 5m or 1h, from 1 s to 24 h: ${String(value).slice(0, 40)}`,
  );
}

/** --core-url: Core's origin; a bad one is a usage error (64) with the URL rule's line and hint. */
export function coreUrlArg(raw: string): string {
  return parseCoreUrl(raw, EXIT.usage).origin;
}

/** A value through its schema, or a usage error (64) with the line that says what to write. */
function valueOf<T>(schema: z.ZodType<T>, value: unknown, line: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(line);
}

/** --name: the node's display name goes to Core and into output: one line of at most 200
 *  characters, no control or bidi characters (SEC-04, SEC-09; Core refuses control characters too). */
const nodeName = z
  .string()
  .max(200)
  .refine((v) => v.trim() !== '' && escapeControls(v) === v);

export function nameArg(value: string): string {
  return valueOf(
    nodeName,
    value,
    '--name must be 1 to 200 characters without control characters (default: the host name)',
  );
}

/** HOST-11: an absolute, normalised path that systemd's ReadWritePaths= and a shell line can
 *  carry as is (no spaces, `%`, `$`, quotes or `..`). */
const checkpointRoot = z
  .string()
  .regex(/^(\/[A-Za-z0-9._@+-]+)+$/)
  .refine((v) => !v.split('/').some((part) => part === '.' || part === '..'));

export function checkpointRootArg(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return valueOf(
    checkpointRoot,
    value,
    '--checkpoint-root must be an absolute path of [A-Za-z0-9._@+-] names, without . or .. (such as /srv/oac-checkpoints)',
  );
}

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** --manifest-sha256 goes with --bundle, and only with it (OFFLINE-01): a bundle is trusted
 *  through the SHA-256 of its manifest that the command names. */
export function manifestSha256Arg(bundle: string | undefined, sha256: string | undefined): string {
  if (bundle === undefined && sha256 !== undefined)
    throw new UsageError('--manifest-sha256 goes with --bundle');
  if (bundle === undefined) return '';
  return valueOf(
    sha256Hex,
    sha256,
    "--bundle needs --manifest-sha256: the SHA-256 of the bundle's manifest (64 lowercase hexadecimal digits), as oac-node bundle printed it",
  );
}

/** A file or directory path given on the command line: not empty, one line of printable text
 *  (it is printed back in messages), at most PATH_MAX. Where it points is the command's to check. */
const pathValue = z
  .string()
  .min(1)
  .max(4096)
  .refine((v) => v.trim() !== '' && escapeControls(v) === v);

export function pathArg(flag: string, value: string): string;
export function pathArg(flag: string, value: string | undefined): string | undefined;
export function pathArg(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return valueOf(
    pathValue,
    value,
    `${flag} takes a path: not empty, without control characters, at most 4096 characters`,
  );
}
