// What the node half's drivers need beyond the resource: the request from the installer (or
// the rollout), the release manifest, and where downloads land.
import { join } from 'node:path';
import { STATE_FILES } from '../../layout.ts';
import type { DriverContext } from '../driver.ts';

export function prepareOf(ctx: DriverContext) {
  if (ctx.prepare === undefined) throw new Error('the node half runs its own resources');
  const { req, manifest, bundle } = ctx.prepare;
  const run = { req, manifest, bundle, emit: ctx.emit, signal: ctx.signal };
  return { req, manifest, run, filesDir: join(req.state_dir, STATE_FILES.files) };
}
