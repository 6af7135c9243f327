// Standard output written with write(2) itself, not through process.stdout's stream (issue #41:
// building that stream was about 5 ms of a 24 ms `--version`; src/cli/quick-answers.ts).
import { writeSync } from 'node:fs';

/** Writes `bytes` to descriptor 1 until all are written; throws write(2)'s error (EPIPE, EAGAIN
 *  on a full non-blocking pipe, ENOSPC …) with `written` saying how far it came. */
export function writeStdoutDirect(bytes: Buffer): void {
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    throw Object.assign(error as NodeJS.ErrnoException, { written });
  }
}
