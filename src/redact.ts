// SEC-03: secrets (token, node credential, proxy credentials) never reach a message, log line,
// --json event or error, including errors thrown by libraries. Every secret the program learns
// is registered here first; everything rendered passes through redact().

const MIN_SECRET_LENGTH = 4; // shorter strings would mask ordinary words
const MASK = '***';

export class Redactor {
  private readonly secrets = new Set<string>();

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    this.secrets.add(secret);
    // A secret also travels URL-encoded (proxy URLs), and inside JSON text that a message quotes
    // (a response body in an error) with `"` and `\` escaped: each form is masked as written.
    // --json lines are not redacted as text: printableJson masks each string before it is
    // serialised (src/ui/printable.ts), since masking JSON text can cut an escape sequence.
    // A lone surrogate has no URL encoding (encodeURIComponent throws URIError, issue #26's
    // fuzzing found it through tokenFromStdin), so such a secret never travels URL-encoded.
    if (!/[\uD800-\uDFFF]/u.test(secret)) this.secrets.add(encodeURIComponent(secret));
    this.secrets.add(JSON.stringify(secret).slice(1, -1));
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is masked whole.
    const ordered = [...this.secrets].sort((a, b) => b.length - a.length);
    for (const secret of ordered) out = out.split(secret).join(MASK);
    return out.replace(/(Bearer\s+)[^\s"',]+/gi, `$1${MASK}`);
  }
}

/** The process-wide redactor the CLI renders through. */
export const redactor = new Redactor();
