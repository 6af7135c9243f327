// The env file's one format (HOST-06, issue #27 finding 4): /etc/oac-node/<id>.env holds the six
// proxy variables of the latest install, one `NAME="value"` line each. Root writes it
// (renderEnvFile, the content of the desired state's env-file resource); systemd reads it for
// the service (the unit's EnvironmentFile=); status and uninstall read it back (parseEnvFile,
// through ./proxy-settings.ts) to reach Core as the service does. Writer and reader live here
// so that the three read the same variables.
//
// systemd's parser (src/basic/env-file.c) takes a double-quoted value up to the closing `"`;
// inside it `\` before `"`, `\`, `` ` `` or `$` is that character, `\` before a line break joins
// the next line, and `\` before anything else stays. Outside quotes it ends a line at CR as well
// as LF; it ignores a value that is not UTF-8, and older versions also one with a control
// character other than TAB. So the writer escapes `\` and `"` and nothing else, and refuses a
// value it cannot write so that every reader agrees: a C0 control character or DEL (CR, LF and
// NUL among them) or a lone surrogate (not UTF-8). The reader takes that grammar and nothing
// else: anything another hand wrote is refused with one line, never half read.
//
// Issue #27 finding 5: the file holds proxy credentials, so no plain digest of it is printed or
// recorded (a weak password could be guessed offline from a pasted `status` or a journal). Its
// first line, a comment that systemd skips, holds a random key of its own; the journal records
// the file's HMAC-SHA-256 under that key (envFileDigest), which tells a changed file without
// telling anything to whoever lacks the key, and the key lives only where the password does.
import { createHmac, randomBytes } from 'node:crypto';
import type { Host } from '../src/host/host.ts';
import { OacError } from '../src/errors.ts';
import { oacError } from '../src/messages.ts';
import {
  CONTROL_CHARACTER,
  PROXY_VARIABLES,
  type ProxyEnv,
  type ProxyVariable,
} from '../src/net/proxy-env.ts';

// A lone surrogate (in `u` mode a pair is one code point and does not match): not UTF-8.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const KEY_LINE = /^# oac-node digest key: ([0-9a-f]{64})$/;
/** The prefix of a keyed digest, so that it is never taken for a plain SHA-256. */
export const KEYED_DIGEST = 'hmac-sha256:';
// One line as renderEnvFile writes it: a name, `="`, escaped text without control characters.
const LINE = /^([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\\u0000-\u001f\u007f]|\\["\\])*)"$/u;

/** The env file: the six proxy variables of the latest run, nothing else; undefined when none
 *  is set (no file). A value no reader could take back exactly throws one line naming it. */
export function renderEnvFile(
  proxyEnv: Record<string, string>,
  /** The file's digest key (envFileKey of the file there, or newEnvFileKey()). */
  key: string,
): string | undefined {
  const lines = PROXY_VARIABLES.filter((n) => proxyEnv[n] !== undefined).map(
    (n) => `${n}=${quoteEnvValue(n, proxyEnv[n] ?? '')}`,
  );
  if (lines.length === 0) return undefined;
  if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('an env file key is 64 hex digits');
  return `# oac-node digest key: ${key}\n${lines.join('\n')}\n`;
}

/** A key for a new env file (its first line; see the top of this file). */
export function newEnvFileKey(): string {
  return randomBytes(32).toString('hex');
}

/** The key an env file carries, if its first line holds one. */
export function envFileKey(content: Uint8Array | string): string | undefined {
  const text = typeof content === 'string' ? content : Buffer.from(content).toString('latin1');
  return KEY_LINE.exec(text.slice(0, text.indexOf('\n')))?.[1];
}

/** What the journal records and status compares: `hmac-sha256:<hex>` of the whole file under
 *  its own key; a file without a key has none (it differs from every recorded digest). */
export function envFileDigest(content: Uint8Array | string): string | undefined {
  const key = envFileKey(content);
  if (key === undefined) return undefined;
  const hmac = createHmac('sha256', Buffer.from(key, 'hex')).update(content);
  return `${KEYED_DIGEST}${hmac.digest('hex')}`;
}

function quoteEnvValue(name: ProxyVariable, value: string): string {
  if (CONTROL_CHARACTER.test(value) || LONE_SURROGATE.test(value))
    throw oacError('proxy_control_character', { name });
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The variables of an env file renderEnvFile wrote, exactly as systemd reads them; anything
 *  else throws `proxy_settings_damaged`, naming the file and the line (never a value). */
export function parseEnvFile(content: Uint8Array | string, path: string): ProxyEnv {
  const damaged = (problem: string): OacError =>
    oacError('proxy_settings_damaged', { path, problem });
  let text: string;
  if (typeof content === 'string') {
    text = content;
    if (LONE_SURROGATE.test(text)) throw damaged('it is not UTF-8');
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content);
    } catch {
      throw damaged('it is not UTF-8');
    }
  }
  if (text === '') throw damaged('it is empty');
  if (!text.endsWith('\n')) throw damaged('its last line does not end with a line break');
  const env: ProxyEnv = {};
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      if (index === 0 && KEY_LINE.test(line)) return; // the digest key, for the record only
      const match = LINE.exec(line);
      if (match === null) throw damaged(`line ${index + 1} is not NAME="value"`);
      const name = match[1] as ProxyVariable;
      if (!PROXY_VARIABLES.includes(name))
        throw damaged(`line ${index + 1} sets no proxy variable`);
      if (env[name] !== undefined) throw damaged(`line ${index + 1} sets ${name} again`);
      env[name] = (match[2] ?? '').replace(/\\(["\\])/g, '$1');
    });
  return env;
}

/** Six proxy URLs and a key line fit in far less; anything larger is no file of ours. */
const MAX_ENV_FILE_BYTES = 64 * 1024;

/**
 * The env file's bytes, or undefined when there is none. Opened without following a link and
 * without blocking (a FIFO in its place would hang every command that reads it), and read only
 * if it is a regular file of at most 64 KiB; anything else is `proxy_settings_damaged`.
 */
export async function readEnvFile(host: Host, path: string): Promise<Buffer | undefined> {
  const found = await host.readSmallFile(path, MAX_ENV_FILE_BYTES);
  if (found.kind === 'file') return found.bytes;
  if (found.kind === 'absent') return undefined;
  const problem = {
    link: 'it is a symbolic link',
    'not-regular': 'it is not a regular file',
    'too-large': 'it is over 64 KiB',
  }[found.kind];
  throw oacError('proxy_settings_damaged', { path, problem });
}
