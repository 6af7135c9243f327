// `npm run bench:resume [-- --size-mib 1024]`: a download cut at half way by the
// reference Core's fault switch (it hangs up after half the bytes), then run again, as an
// operator reruns the command (issue #13, DL-02). Prints what the part file kept and how many
// bytes the rerun fetched again, from the Core's own request log (target ≤ 1 MiB). The product's
// downloadFile and dispatcher, in this process; the Core in its own. A bench: it never fails.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDispatcher } from '../src/net/dispatcher.ts';
import { downloadFile } from '../src/net/download.ts';
import { startCore } from '../test/helpers/core.ts';
import { isMain, tableOf, type Figure } from './figures.ts';
import { NAME, RELEASE, writeNodeFileRelease } from './node-file-release.ts';

const MiB = 1024 * 1024;

export async function measureResume(sizeMiB = 1024): Promise<Figure[]> {
  const size = sizeMiB * MiB;
  const work = await mkdtemp(join(tmpdir(), 'oac-bench-resume-'));
  let core: Awaited<ReturnType<typeof startCore>> | undefined;
  const dispatcher = createDispatcher();
  try {
    const { sha256 } = await writeNodeFileRelease(join(work, 'release'), size);
    core = await startCore(['--release-dir', join(work, 'release')]);
    const api = core.coreApi;
    const cut = Math.floor(size / 2);
    await api('PUT', '/__fixture/faults', {
      target: NAME,
      fault: { kind: 'drop', after_bytes: cut },
      count: 1,
    });
    await api('DELETE', '/__fixture/requests');
    const dest = join(work, NAME);
    const options = {
      url: `${core.console_url}/node-files/${RELEASE}/${NAME}`,
      dest,
      size,
      sha256,
      dispatcher,
      retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    };
    const first = await downloadFile(options).then(
      () => 'completed (the cut did not happen)',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const kept = (await stat(`${dest}.part`).catch(() => undefined))?.size ?? 0;
    const started = performance.now();
    const outcome = await downloadFile(options);
    const rerunMs = performance.now() - started;
    const log = (await api('GET', '/__fixture/requests')).body as Array<{ body_bytes: number }>;
    const fetched = log.reduce((sum, e) => sum + e.body_bytes, 0);
    const again = fetched - size;
    return [
      {
        name: `resume of ${sizeMiB} MiB cut at half way: bytes fetched again`,
        value: again,
        unit: 'bytes',
        target: { text: '≤ 1 MiB', met: again <= MiB },
        note: `first run: ${first}; part kept ${(kept / MiB).toFixed(1)} MiB; rerun ${outcome} in ${(rerunMs / 1000).toFixed(2)} s`,
      },
    ];
  } finally {
    await dispatcher.close();
    await core?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { 'size-mib': { type: 'string', default: '1024' } } });
  process.stdout.write(`${tableOf(await measureResume(Number(values['size-mib'])))}\n`);
}
