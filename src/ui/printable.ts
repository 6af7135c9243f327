// SEC-09: text that a node account or Core wrote reaches a terminal only with its control
// characters escaped, so it can neither move the cursor, recolour, rewrite a line (ESC, CR, BS),
// ring, nor reorder what the operator reads (Unicode bidi overrides), nor forge a second line
// (LF). One rule, applied where text leaves the program (render-error, render-events, log,
// listr, the commands' summaries), after the redactor (SEC-03) so a secret is masked first.
import { forOperator } from './operator-shell.ts';
import { redactor, type Redactor } from '../redact.ts';

// C0 (including TAB, LF, CR), DEL, C1, the bidi embeddings/overrides/isolates and marks
// (U+200E/U+200F, U+061C), and the line/paragraph separators that some terminals treat as LF.
const CONTROL =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Each control character as a visible escape: `\x1b` up to U+00FF, `\u202e` above. Backslash
 *  is left alone: the output is read by people, not decoded, and a forged `\x1b` is harmless. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** One line for the terminal: secrets masked, then control characters escaped; commands
 *  named as the operator types them (no sudo in a root shell). */
export function printable(text: string): string {
  return escapeControls(forOperator(redactor.redact(text)));
}

// JSON.stringify already writes C0 as \uXXXX; what it leaves raw (DEL, C1, bidi, separators) is
// written as \uXXXX too, which any JSON reader decodes to the same value: --json keeps the data
// exact and stays safe to read on a terminal. Only raw characters are replaced, never a `\`, so
// no escape sequence is touched.
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One JSON document on one line: secrets masked, every control character \u-escaped.
 *  SEC-03 masks each string (keys too) before it is serialised, never the serialised text: over
 *  the text, the Bearer pattern ate the `\` of an escaped quote and a secret could start inside
 *  an escape sequence, and the line stopped being JSON (issue 27). `r` is for tests. */
export function printableJson(value: unknown, r: Redactor = redactor): string {
  return JSON.stringify(value, maskStrings(r)).replace(
    JSON_RAW,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A JSON.stringify replacer: it sees every value after toJSON, so every string that reaches the
 *  text passes redact(). An object whose keys hold a secret is rebuilt with masked keys (its
 *  values then come back through the replacer); boxed strings are unboxed, as stringify would. */
function maskStrings(r: Redactor): (this: unknown, key: string, value: unknown) => unknown {
  return (_key, value) => {
    if (typeof value === 'string') return r.redact(value);
    if (value instanceof String) return r.redact(value.valueOf());
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    if (value instanceof Number || value instanceof Boolean) return value;
    const entries = Object.entries(value);
    if (entries.every(([k]) => r.redact(k) === k)) return value;
    return Object.fromEntries(entries.map(([k, v]) => [r.redact(k), v]));
  };
}
