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
// One line as renderEnvFile writes it: a name, `="`, escaped text without control characters.
const LINE = /^([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\\u0000-\u001f\u007f]|\\["\\])*)"$/u;

/** The env file: the six proxy variables of the latest run, nothing else; undefined when none
 *  is set (no file). A value no reader could take back exactly throws one line naming it. */
export function renderEnvFile(proxyEnv: Record<string, string>): string | undefined {
  const lines = PROXY_VARIABLES.filter((n) => proxyEnv[n] !== undefined).map(
    (n) => `${n}=${quoteEnvValue(n, proxyEnv[n] ?? '')}`,
  );
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
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
