// The demo prints the line Web would show, with its token hidden (SEC-03: a token is never
// printed where a screen or a log keeps it). The token is the last printf of the line's script,
// after the environment's lines (installer/one-liner.ts).
export function hideToken(line: string): string {
  return line.replace(/(done; echo; printf %s ")[^"]*"/, '$1<token>"');
}
