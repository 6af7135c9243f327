// What an install takes from outside before it starts (the install command and `apply`): the
// enrollment token on standard input (never an argument or a variable), the proxy variables,
// Core's pin and the operator's bundle, each checked before anything is read from Core.
import { UsageError } from '../errors.ts';
import { enrollmentToken } from '../net/core-schemas.ts';
import { PROXY_VARIABLES } from '../net/proxy-env.ts';
import { NO_PIN, parseCorePin } from '../net/core-pin.ts';
import { readBundle, type Bundle } from '../bundle/bundle.ts';
import { openBundleFile } from '../host/bundle-file.ts';
import { isCode } from '../host/files.ts';
import { oacError } from '../messages.ts';
import { redactor } from '../redact.ts';
import { readStdin } from './stdin.ts';

// Names under which a token could be handed over through sudo VAR=… (and land in its log).
export const TOKEN_VARIABLES = ['OAC_ENROLLMENT_TOKEN', 'OAC_TOKEN', 'ENROLLMENT_TOKEN'];

/** The enrollment token on stdin (none: a rerun of a registered node), checked (SEC-04) and
 *  refused if it is also in the environment (PRE-02: it went through sudo's log). */
export async function tokenOfThisRun(): Promise<string | undefined> {
  if (TOKEN_VARIABLES.some((name) => process.env[name] !== undefined)) refuseTokenInEnvironment();
  const token = tokenFromStdin(await readStdin(TOKEN_STDIN_MAX_BYTES, 'the enrollment token'));
  if (token !== undefined && Object.values(process.env).includes(token)) refuseTokenInEnvironment();
  return token;
}

/** The six proxy variables as this process received them (DL-04, HOST-06). */
export function proxyEnvOfThisRun(): Record<string, string> {
  return Object.fromEntries(
    PROXY_VARIABLES.flatMap((n) =>
      process.env[n] === undefined ? [] : [[n, process.env[n] as string]],
    ),
  );
}

/** TRUST-01: the pin given (checked before the token is read), `none` for the host's trust
 *  store, or undefined: the node's recorded pin, which install looks up first. */
export function corePinArg(
  value: string | undefined,
  coreOrigin: string,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === NO_PIN) return null;
  return parseCorePin(value, coreOrigin);
}

/** The operator's bundle, open for the whole run (the node half reads it by descriptor). */
export async function openBundle(path: string): Promise<Bundle & { close(): Promise<void> }> {
  let file;
  try {
    file = await openBundleFile(path);
  } catch (error) {
    const reason = isCode(error, 'ENOENT')
      ? 'no such file'
      : isCode(error, 'ENOTREG')
        ? 'not a regular file'
        : `it cannot be read (${(error as { code?: string }).code ?? 'error'})`;
    throw oacError('bundle_unreadable', { path, reason });
  }
  try {
    return { ...(await readBundle(file.fd, file.size, path)), close: file.close };
  } catch (error) {
    await file.close();
    throw error;
  }
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

// One token and its line end, with room to spare; more is not a token (SEC-04).
const TOKEN_STDIN_MAX_BYTES = 4096;

/** The token from stdin, checked against Core's token schema before any use (SEC-04); nothing
 *  (a rerun of a registered node) is undefined. A refusal never echoes what arrived. */
export function tokenFromStdin(text: string): string | undefined {
  const token = text.trim();
  if (token === '') return undefined;
  // Masked from here on, even if it is no token: it may be one with a stray character.
  redactor.add(token);
  if (!enrollmentToken.safeParse(token).success)
    throw new UsageError(
      "Standard input must hold only the enrollment token: 16 to 512 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'",
    );
  return token;
}

export function refuseTokenInEnvironment(): never {
  throw oacError('token_in_environment');
}
