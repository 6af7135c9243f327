// `oac-node apply FILE` (DECL-05): a plan saved by `install … --plan-out FILE` (or `uninstall …
// --plan-out FILE`), applied only if
// planning again, now, gives exactly that plan from exactly the same inputs (the host, the
// record, Core's configuration, the options, this installer); otherwise nothing changes, one
// line names what moved, and the exit status is 3. The token comes on stdin when the plan
// registers a node, as for install; the proxy variables are this process's, as for install
// (they must be the plan's: only their digest was saved).
import type { Argv, CommandModule } from 'yargs';
import { readPlanFile } from '../../installation/plan-file.ts';
import { oacError } from '../../messages.ts';
import { parseInstallationId } from '../../layout.ts';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { checkpointRootArg, nameArg, parseTimeout, timeoutOption } from '../options.ts';
import { corePinArg, openBundle, proxyEnvOfThisRun, tokenOfThisRun } from '../install-inputs.ts';
import { runInstall } from '../install-output.ts';
import { parseServiceUrl } from '../../net/url-policy.ts';
import { runUninstallWith } from '../uninstall-output.ts';
import { comment } from '../examples.ts';

interface ApplyArgs {
  file?: string;
  json: boolean;
  timeout: string;
  root?: string;
}

export const applyCommand: CommandModule<object, ApplyArgs> = {
  command: 'apply <file>',
  describe: COMMAND_SUMMARIES.apply,
  builder: (yargs: Argv) =>
    yargs
      .positional('file', { type: 'string', describe: 'The plan file install --plan-out wrote' })
      .option('json', { type: 'boolean', default: false, describe: 'Print NDJSON events' })
      .option('timeout', timeoutOption)
      .example(
        comment(
          'Apply a reviewed plan of a registered node (exit 3: the plan is stale, nothing changed)',
        ),
        '',
      )
      .example('sudo $0 apply /root/node.plan < /dev/null', ''),
  handler: async (argv) => {
    // PRE-01: root before the token is read or anything changes.
    if (process.getuid?.() !== 0) throw oacError('not_root');
    const saved = await readPlanFile(argv.file ?? '');
    if (saved.command === 'uninstall') {
      const id = parseInstallationId(saved.options.installation_id);
      const request = { root: argv.root ?? '/', installationId: id, force: saved.options.force };
      return runUninstallWith({ ...request, dryRun: false, savedPlan: saved }, { json: argv.json });
    }
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
        root: argv.root ?? '/',
        token,
        timeoutSeconds: parseTimeout(argv.timeout),
        savedPlan: saved,
        ...fromBundle,
      },
      { json: argv.json },
    ).finally(() => bundle?.close());
  },
};
