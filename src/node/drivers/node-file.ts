// microsandbox's files of a release (Runtime, firmware, helper), made by the node half in its
// files directory: downloaded (resumed, verified against the manifest's SHA-256, DL-01, DL-02),
// the helper made executable only after its check. They go with the state directory.
import { z } from 'zod';
import { downloadNodeFile } from '../node-files.ts';
import { oacError } from '../../messages.ts';
import { isExecutableFile, setMode } from '../../host/files.ts';
import type { Driver } from '../../resources/driver.ts';
import { fileSha256, rememberSha256 } from '../../resources/drivers/file-digest.ts';
import { prepareOf, type NodeContext } from './node-context.ts';
import { defineKind } from '../../resources/kind.ts';
import { NODE_FILE_RESOURCE } from '../../resources/resources.ts';

/** What the probe finds: whether the file is there with the release's SHA-256. */
const NODE_FILE_ACTUAL = z.strictObject({ verified: z.boolean() });

export const nodeFileDriver: Driver<'node-file', z.infer<typeof NODE_FILE_ACTUAL>, NodeContext> = {
  async probe(r, ctx) {
    const path = ctx.host.path(r.path);
    const good = (await fileSha256(ctx, path)) === r.sha256;
    return { verified: good && (!r.executable || (await isExecutableFile(path))) };
  },
  exists: (a) => a.verified,
  diff: (r, { verified }) =>
    verified
      ? { kind: 'unchanged', detail: `${r.file} verified` }
      : { kind: 'create', detail: `download ${r.file}` },
  async apply(r, _action, _actual, ctx) {
    const { manifest, run } = prepareOf(ctx);
    const file = manifest.files.find((f) => f.name === r.file);
    if (file === undefined) throw oacError('manifest_invalid', { detail: `it lists no ${r.file}` });
    const path = ctx.host.path(r.path);
    await downloadNodeFile(run, file, path, r.key);
    // Verified first, executable second: a helper never runs before its SHA-256 matched.
    await setMode(path, r.executable ? 0o700 : 0o600);
    await rememberSha256(ctx, path, r.sha256);
    const how = run.bundle === undefined ? 'downloaded' : 'copied from the bundle';
    return { outcome: 'created', detail: `${r.file} ${how} and verified` };
  },
  remove: (r) => Promise.resolve({ outcome: 'skipped', detail: `${r.file} (goes with the state)` }),
};

/** A microsandbox file of the release as a kind (src/resources/kind.ts): unrecorded. */
export const nodeFileKind = defineKind({
  kind: 'node-file',
  desired: NODE_FILE_RESOURCE,
  recorded: false,
  driver: nodeFileDriver,
  actual: NODE_FILE_ACTUAL,
  name: (r) => r.path,
});
