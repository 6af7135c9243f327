// `oac-node install`: parses, calls the install, renders (src/cli/install-output.ts). The guide's
// commands pass `--uninstall` to the installer (BOOT-07): src/cli/main.ts reads them as the
// uninstall command (normaliseArgs), so those lines keep working.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import {
  checkpointRootArg,
  coreUrlArg,
  manifestSha256Arg,
  nameArg,
  pathArg,
  parseTimeout,
} from '../options.ts';
import { oacError } from '../../messages.ts';
import { UsageError } from '../../errors.ts';
import { parseInstallationId } from '../../layout.ts';
import {
  TOKEN_VARIABLES,
  corePinArg,
  openBundle,
  proxyEnvOfThisRun,
  refuseTokenInEnvironment,
  required,
  tokenOfThisRun,
} from '../install-inputs.ts';
import { installOptions, type InstallArgs } from '../install-options.ts';
import { runInstall } from '../install-output.ts';
import { limitDownloadMemory } from '../../net/download-memory.ts';

export const installCommand: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe: COMMAND_SUMMARIES.install,
  builder: installOptions,
  handler: async (argv) => {
    // PRE-01: root before the token is read or anything changes.
    if (process.getuid?.() !== 0) throw oacError('not_root');
    limitDownloadMemory(); // Issue #41: ≤ 100 MB (src/net/download-memory.ts says why)
    if (TOKEN_VARIABLES.some((name) => process.env[name] !== undefined)) refuseTokenInEnvironment();
    const coreUrl = required(argv['core-url'], '--core-url');
    const installationId = parseInstallationId(argv['installation-id']);
    const coreOrigin = coreUrlArg(coreUrl);
    const corePin = corePinArg(argv['core-pin'], coreOrigin);
    const checkpointRoot = checkpointRootArg(argv['checkpoint-root']);
    const name = nameArg(argv.name ?? hostname());
    // OFFLINE-01: opened and listed before the token is read; checked whole in preflight.
    const planOut = pathArg('--plan-out', argv['plan-out']);
    // Issue #40: the confirmation is the operator's, now; a saved plan does not carry it.
    if (planOut !== undefined && argv['same-host'])
      throw new UsageError('--same-host is not saved in a plan: run the install with it instead');
    const bundlePath = pathArg('--bundle', argv.bundle);
    const manifestSha256 = manifestSha256Arg(bundlePath, argv['manifest-sha256']);
    const bundle = bundlePath === undefined ? undefined : await openBundle(bundlePath);
    const token = await tokenOfThisRun();
    const proxyEnv = proxyEnvOfThisRun();
    const request = {
      coreUrl: coreOrigin,
      corePin,
      installationId,
      name,
      // DECL-05: a saved plan is a dry run's plan, written to a file.
      dryRun: argv['dry-run'] || planOut !== undefined,
      checkpointRoot,
      proxyEnv,
      root: argv.root ?? '/',
      token,
      timeoutSeconds: parseTimeout(argv.timeout),
      ...(planOut === undefined ? {} : { planOut: true }),
      ...(argv['allow-downgrade'] ? { allowDowngrade: true } : {}),
      ...(argv['same-host'] ? { sameHost: true } : {}),
      ...(bundle === undefined
        ? {}
        : { bundle, bundleManifestSha256: manifestSha256, bundlePath: resolve(bundlePath ?? '') }),
    };
    await runInstall(request, { json: argv.json, quiet: argv.quiet, planOut }).finally(() =>
      bundle?.close(),
    );
  },
};
