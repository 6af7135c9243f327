// What `oac-node bundle` prints once the bundle is made (src/cli/commands/bundle.ts): lines for a
// person, or with --json one document (docs/schema/bundle.json, issue #39 item 10) for a script
// that checks the copy with the bundle's SHA-256 and hands the manifest's to `oac-node command`.
import { BUNDLE_INSTALLER, BUNDLE_MANIFEST, readBundle } from '../bundle/bundle.ts';
import { makeBundle, type MadeBundle, type MakeBundleRequest } from '../bundle/make-bundle.ts';
import { openBundleFile, sha256OfEntry } from '../host/bundle-file.ts';
import { printable } from '../ui/printable.ts';
import type { EngineEvent } from '../core/events.ts';
import { listrView, type ListrView } from '../ui/listr-renderer.ts';
import { plainRenderer } from '../ui/render-events.ts';
import { JSON_FORMAT, documentLine } from './json-contract.ts';
import type { BundleDocument } from './json-schemas.ts';

export interface BundleScreen {
  emit: (event: EngineEvent) => void;
  onPlan: (steps: Array<{ id: string; title: string }>) => void;
  /** The run's result, once the screen shows how it ended. */
  around: <T>(work: Promise<T>) => Promise<T>;
}

/** `bundle`'s work, shown as it goes (bundleScreen). */
export function makeBundleShown(
  req: Omit<MakeBundleRequest, 'emit' | 'onPlan'>,
  json: boolean,
): Promise<MadeBundle> {
  const screen = bundleScreen(json);
  return screen.around(makeBundle({ ...req, emit: screen.emit, onPlan: screen.onPlan }));
}

/** The bundle's steps as an install's are drawn (issue #39): listr2 rows on a terminal, one per
 *  file with its bytes, rate and time left, then the bundle written; otherwise plain lines on
 *  stderr (with --json too: stdout is the document alone). */
export function bundleScreen(json: boolean): BundleScreen {
  const live = !json && process.stdout.isTTY === true;
  const plain = plainRenderer((text) => process.stderr.write(text), false);
  let view: ListrView | undefined;
  return {
    emit: (event) => (view === undefined ? plain(event) : view.emit(event)),
    onPlan: (steps) => {
      if (live) view = listrView(steps);
    },
    around: async (work) => {
      try {
        const result = await work;
        await view?.finish();
        return result;
      } catch (error) {
        await view?.finish(error);
        throw error;
      }
    },
  };
}

/** What `bundle` prints on stdout: the lines, or with --json the document. */
export async function madeOutput(made: MadeBundle, json: boolean): Promise<string> {
  return json ? documentLine(await madeDocument(made)) : madeLines(made);
}

/** What the operator does next with the bundle made (docs/offline.md). */
export function madeLines(made: MadeBundle): string {
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

/** `bundle --json`: the bundle as written, each entry read back from the file by the reader an
 *  install uses. An entry's SHA-256 is the manifest's (each was checked against it as it went
 *  in: writeBundle), the manifest's own its bytes'; an entry the manifest does not name (none
 *  that makeBundle writes) is hashed from the file. */
export async function madeDocument(made: MadeBundle): Promise<BundleDocument> {
  const file = await openBundleFile(made.path);
  try {
    const bundle = await readBundle(file.fd, file.size, made.path);
    const named = new Map<string, string>([
      [BUNDLE_MANIFEST, bundle.manifestSha256],
      ...bundle.manifest.files.map(
        (f) => [f.kind === 'node-program' ? BUNDLE_INSTALLER : f.name, f.sha256] as const,
      ),
    ]);
    const files: BundleDocument['files'] = [];
    for (const entry of bundle.entries.values())
      files.push({
        name: entry.name,
        size: entry.size,
        sha256: named.get(entry.name) ?? (await sha256OfEntry(file.fd, entry)),
      });
    return {
      format: JSON_FORMAT,
      path: made.path,
      release: made.release,
      size: made.bytes,
      sha256: made.sha256,
      manifest_sha256: made.manifestSha256,
      files,
    };
  } finally {
    await file.close();
  }
}
