// What `oac-node bundle` prints once the bundle is made (src/cli/commands/bundle.ts).
import type { makeBundle } from '../bundle/make-bundle.ts';
import { printable } from '../ui/printable.ts';

/** What the operator does next with the bundle made (docs/offline.md). */
export function madeLines(made: Awaited<ReturnType<typeof makeBundle>>): string {
  const lines = [
    `Bundle ${made.path}: release ${made.release}, ${made.files} files, ${made.bytes} bytes`,
    `SHA-256: ${made.sha256}`,
    `Manifest SHA-256: ${made.manifestSha256}`,
    'Copy it to the host, check it there with sha256sum, and run the line that',
    `  oac-node command … --bundle /path/on/the/host --manifest-sha256 ${made.manifestSha256}`,
    'prints (docs/offline.md).',
  ];
  return `${lines.map(printable).join('\n')}\n`;
}
