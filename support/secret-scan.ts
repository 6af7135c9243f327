// The support bundle cannot leak (issue #40): not by patterns, by the exact values. Before a bundle
// is written, every secret this host holds (the node's credential, proxy passwords) is looked for
// in every file of it, raw and in each encoding a log or a document can carry it in: base64 and
// base64url (at each of the three alignments a value can take inside a longer encoded run),
// URL-encoding (either case of its hex), hex (either case) and JSON's escaping. A secret split by
// a line break (a log that wraps) is found too: each file is also read with its line breaks taken
// out. A hit the collector did not mask already stops the bundle (fail closed: support/diagnose.ts).

export interface Secret {
  /** What it is, for the refusal's line: never the value. */
  kind: string;
  value: string;
}

export interface Hit {
  file: string;
  kind: string;
  /** Which form of the value was found (raw, base64, url, hex, json). */
  encoding: string;
}

/** Shorter than this, a value is too common to look for in every encoding without finding it
 *  everywhere; such a value is still looked for raw and URL-encoded, as a whole word. */
const ENCODED_MIN = 8;

/** The forms a value can take in a file, each with its encoding's name. */
export function secretForms(value: string): Array<{ encoding: string; form: string }> {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [
    { encoding: 'raw', form: value },
    { encoding: 'url', form: encodeURIComponent(value) },
    {
      encoding: 'url',
      form: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    },
    { encoding: 'json', form: JSON.stringify(value).slice(1, -1) },
  ];
  if (bytes.length >= ENCODED_MIN) {
    forms.push({ encoding: 'hex', form: bytes.toString('hex') });
    forms.push({ encoding: 'hex', form: bytes.toString('hex').toUpperCase() });
    for (const alphabet of ['base64', 'base64url'] as const)
      for (const shift of [0, 1, 2])
        forms.push({ encoding: alphabet, form: alignedBase64(bytes, shift, alphabet) });
  }
  const seen = new Set<string>();
  return forms.filter(({ form }) => form.length > 0 && !seen.has(form) && seen.add(form));
}

/** The part of `bytes`' encoding that is the same whatever comes before it, when `shift` bytes
 *  precede it in the encoded run (0, 1 or 2: the three alignments of base64's 3-byte groups),
 *  and whatever comes after it. */
function alignedBase64(bytes: Buffer, shift: number, alphabet: 'base64' | 'base64url'): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
    .toString(alphabet)
    .replace(/=+$/, '');
  // The characters that hold the zero bytes' bits (and any of the value's mixed with them).
  const head = Math.ceil((shift * 8) / 6);
  // The last group's characters depend on what follows the value: left out.
  const whole = Math.floor(((shift + bytes.length) * 8) / 24) * 4;
  return encoded.slice(head, whole);
}

/** Every secret found in every file: each file read as it is and with its line breaks out. */
export function findSecrets(
  files: ReadonlyArray<{ name: string; data: Buffer }>,
  secrets: readonly Secret[],
): Hit[] {
  const hits: Hit[] = [];
  for (const { name, data } of files) {
    const text = data.toString('utf8');
    const joined = text.replace(/\r?\n/g, '');
    for (const secret of secrets)
      for (const { encoding, form } of secretForms(secret.value)) {
        const short = Buffer.byteLength(secret.value) < ENCODED_MIN;
        if (found(text, form, short) || found(joined, form, short)) {
          hits.push({ file: name, kind: secret.kind, encoding });
          break;
        }
      }
  }
  return hits;
}

/** A short value counts only as a whole word (not inside a longer run of letters and digits). */
function found(text: string, form: string, wholeWord: boolean): boolean {
  if (!wholeWord) return text.includes(form);
  for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + form.length] ?? ' ';
    if (!/[A-Za-z0-9]/.test(before) && !/[A-Za-z0-9]/.test(after)) return true;
  }
  return false;
}

/** A log's text with every form of every secret in it replaced by `[masked: <kind>]`: a log may
 *  carry what a program printed, so its collector masks the values it knows, in every encoding.
 *  What it cannot see whole (a value split by a line break) is left for findSecrets to refuse. */
export function maskSecrets(
  data: Buffer,
  secrets: readonly Secret[],
): { data: Buffer; masked: string[] } {
  let text = data.toString('utf8');
  const masked: string[] = [];
  for (const secret of secrets) {
    // The longest forms first: a value's raw form may lie inside its own URL-encoded one.
    const forms = secretForms(secret.value).sort((a, b) => b.form.length - a.form.length);
    const short = Buffer.byteLength(secret.value) < ENCODED_MIN;
    for (const { form } of forms) {
      if (short || !text.includes(form)) continue;
      text = text.replaceAll(form, `[masked: ${secret.kind}]`);
      if (!masked.includes(secret.kind)) masked.push(secret.kind);
    }
  }
  return { data: Buffer.from(text), masked };
}
