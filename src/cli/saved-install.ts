// `oac-node apply FILE` of a saved install plan (DECL-05): the plan's options pass the checks the
// command line's do, the token and the proxy variables are this run's (only their digests were
// saved), the plan's bundle is opened again, and the install runs with the saved plan, which it
// applies only if planning again gives exactly that plan (installer/install.ts).
import type { SavedInstallPlan } from '../installation/saved-plan.ts';
import { parseInstallationId } from '../layout.ts';
import { parseServiceUrl } from '../net/url-policy.ts';
import { checkpointRootArg, nameArg, parseTimeout } from './options.ts';
import { corePinArg, openBundle, proxyEnvOfThisRun, tokenOfThisRun } from './install-inputs.ts';
import { runInstall } from './install-output.ts';

export async function applySavedInstall(
  saved: SavedInstallPlan,
  o: { json: boolean; timeout: string; root: string | undefined },
): Promise<void> {
  const options = saved.options;
  // The plan's options pass the checks the command line's do, before anything is read.
  const coreUrl = parseServiceUrl(options.core_url, 'The Core URL').origin;
  const corePin = options.core_pin === null ? null : corePinArg(options.core_pin, coreUrl);
  const checkpointRoot = checkpointRootArg(options.checkpoint_root ?? undefined);
  const installationId = parseInstallationId(options.installation_id);
  const name = nameArg(options.name);
  const token = await tokenOfThisRun();
  // OFFLINE-01: the plan's bundle, opened again and checked whole against the manifest digest
  // the reviewed plan names (preflight), as the command line's would be.
  const planned = options.bundle ?? undefined;
  const bundle = planned === undefined ? undefined : await openBundle(planned.path);
  const fromBundle =
    planned === undefined
      ? {}
      : {
          bundle,
          bundleManifestSha256: planned.manifest_sha256,
          bundlePath: planned.path,
        };
  await runInstall(
    {
      coreUrl,
      corePin: corePin ?? null,
      installationId,
      name,
      dryRun: false,
      ...(checkpointRoot === undefined ? {} : { checkpointRoot }),
      ...(options.allow_downgrade === true ? { allowDowngrade: true } : {}),
      proxyEnv: proxyEnvOfThisRun(),
      root: o.root ?? '/',
      token,
      timeoutSeconds: parseTimeout(o.timeout),
      savedPlan: saved,
      ...fromBundle,
    },
    { json: o.json },
  ).finally(() => bundle?.close());
}
