import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import {
  checkpointRootArg,
  coreUrlArg,
  manifestSha256Arg,
  nameArg,
  pathArg,
  parseTimeout,
  timeoutOption,
} from '../options.ts';
import type { Argv, CommandModule } from 'yargs';
import {
  INSTALL_PHASES,
  install,
  type InstallRequest,
  type InstallResult,
} from '../../../installer/install.ts';
import { PLAN_FORMAT, shownEvents } from '../../installation/saved-plan.ts';
import { writePlanFile } from '../../installation/plan-file.ts';
import type { EngineEvent } from '../../core/events.ts';
import { listrView } from '../../ui/listr-renderer.ts';
import { EXIT, ExitStatus, UsageError } from '../../errors.ts';
import { enrollmentToken } from '../../net/core-schemas.ts';
import { PROXY_VARIABLES } from '../../net/proxy-env.ts';
import { NO_PIN, parseCorePin } from '../../net/core-pin.ts';
import { readBundle, type Bundle } from '../../bundle/bundle.ts';
import { openBundleFile } from '../../host/bundle-file.ts';
import { isCode } from '../../host/files.ts';
import { hint, message, oacError } from '../../messages.ts';
import { printable } from '../../ui/printable.ts';
import { planSavedLine } from '../../ui/plan-saved.ts';
import { jsonRenderer, plainRenderer } from '../../ui/render-events.ts';
import { redactor } from '../../redact.ts';
import { readStdin } from '../stdin.ts';
import { errorEvent } from '../error-event.ts';
import { startEvent } from '../json-contract.ts';
import { interruptOnSignals } from '../interrupt.ts';
import { layout, parseInstallationId, type InstallationId } from '../../layout.ts';
import { comment } from '../examples.ts';

interface InstallArgs {
  'core-url'?: string;
  'core-pin'?: string;
  bundle?: string;
  'manifest-sha256'?: string;
  'installation-id'?: string;
  'checkpoint-root'?: string;
  name?: string;
  'dry-run': boolean;
  'plan-out'?: string;
  'allow-downgrade': boolean;
  json: boolean;
  quiet: boolean;
  timeout: string;
  root?: string;
}

// Names under which a token could be handed over through sudo VAR=… (and land in its log).
const TOKEN_VARIABLES = ['OAC_ENROLLMENT_TOKEN', 'OAC_TOKEN', 'ENROLLMENT_TOKEN'];

// The guide's commands pass `--uninstall` to the installer (BOOT-07): src/cli/main.ts reads
// them as the uninstall command (normaliseArgs), so those lines keep working.
export const installCommand: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe: COMMAND_SUMMARIES.install,
  builder: (yargs: Argv) =>
    yargs
      // Marked [required] in --help; missing, each is one line (src/cli/main.ts, usageLine).
      .option('core-url', { type: 'string', demandOption: true, describe: "Core's public URL" })
      .option('core-pin', {
        type: 'string',
        describe:
          "Trust only this key for Core: sha256:<hex> of its CA's public key (none: the host's CAs; default: the node's recorded pin)",
      })
      .option('installation-id', {
        type: 'string',
        demandOption: true,
        describe: "The Core installation's ID",
      })
      .option('bundle', {
        type: 'string',
        describe: 'Take the release files from this bundle (oac-node bundle), not from the console',
      })
      .option('manifest-sha256', {
        type: 'string',
        describe:
          "With --bundle: the SHA-256 of the bundle's manifest, as oac-node bundle printed it",
      })
      .option('checkpoint-root', {
        type: 'string',
        describe: 'microsandbox: shared checkpoint store (absolute path)',
      })
      .option('name', {
        type: 'string',
        describe: "The node's display name (default: the host name)",
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'Print the plan and change nothing (exit 2 if something would change)',
      })
      .option('plan-out', {
        type: 'string',
        describe:
          'Save the plan to this file (0600) and change nothing; oac-node apply FILE applies exactly it',
      })
      .option('allow-downgrade', {
        type: 'boolean',
        default: false,
        describe: 'Put this (older) program in place of the newer one the host runs',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print NDJSON events' })
      .option('quiet', {
        alias: 'q',
        type: 'boolean',
        default: false,
        describe: 'Print only what changes and the last line',
      })
      .option('timeout', timeoutOption)
      // The pasted line's shape (docs/one-line-command.md): the token comes on stdin, never
      // as an argument, where ps and sudo's log would show it.
      .example(
        comment('What the line from Web runs: the token on standard input, never an argument'),
        '',
      )
      .example(
        'sudo $0 install --core-url https://core.example --installation-id ID < token-file',
        '',
      )
      .example(comment('On a node: show what a rerun would change (exit 2 if anything)'), '')
      .example(
        'sudo $0 install --core-url https://core.example --installation-id ID --dry-run < /dev/null',
        '',
      ) as unknown as Argv<InstallArgs>,
  handler: async (argv) => {
    // PRE-01: root before the token is read or anything changes.
    if (process.getuid?.() !== 0) throw oacError('not_root');
    if (TOKEN_VARIABLES.some((name) => process.env[name] !== undefined)) refuseTokenInEnvironment();
    const coreUrl = required(argv['core-url'], '--core-url');
    const installationId = parseInstallationId(argv['installation-id']);
    const coreOrigin = coreUrlArg(coreUrl);
    const corePin = corePinArg(argv['core-pin'], coreOrigin);
    const checkpointRoot = checkpointRootArg(argv['checkpoint-root']);
    const name = nameArg(argv.name ?? hostname());
    // OFFLINE-01: opened and listed before the token is read; checked whole in preflight.
    const planOut = pathArg('--plan-out', argv['plan-out']);
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
      ...(bundle === undefined
        ? {}
        : { bundle, bundleManifestSha256: manifestSha256, bundlePath: resolve(bundlePath ?? '') }),
    };
    await runInstall(request, { json: argv.json, quiet: argv.quiet, planOut }).finally(() =>
      bundle?.close(),
    );
  },
};

/** The enrollment token on stdin (none: a rerun of a registered node), checked (SEC-04) and
 *  refused if it is also in the environment (PRE-02: it went through sudo's log). */
export async function tokenOfThisRun(): Promise<string | undefined> {
  if (TOKEN_VARIABLES.some((name) => process.env[name] !== undefined)) refuseTokenInEnvironment();
  const token = tokenFromStdin(await readStdin(TOKEN_STDIN_MAX_BYTES, 'the enrollment token'));
  if (token !== undefined && Object.values(process.env).includes(token)) refuseTokenInEnvironment();
  return token;
}

/** The six proxy variables as this process received them (DL-04, HOST-06). */
export function proxyEnvOfThisRun(): Record<string, string> {
  return Object.fromEntries(
    PROXY_VARIABLES.flatMap((n) =>
      process.env[n] === undefined ? [] : [[n, process.env[n] as string]],
    ),
  );
}

/** An install (or `apply` of a saved plan) with its output: listr2 phases on a terminal, plain
 *  lines on a pipe, NDJSON with --json; a dry run ends with exit 2 when something would
 *  change; --plan-out writes the plan it showed. */
export async function runInstall(
  request: Omit<InstallRequest, 'signal'>,
  flags: { json: boolean; quiet?: boolean; planOut?: string },
): Promise<void> {
  const write = (text: string) => process.stdout.write(text);
  const dryRun = request.dryRun;
  const quiet = flags.quiet === true;
  const live = !flags.json && !dryRun && !quiet && process.stdout.isTTY;
  const view = live ? listrView(INSTALL_PHASES) : undefined;
  const plain = flags.json ? jsonRenderer(write) : plainRenderer(write, dryRun, Date.now, quiet);
  if (flags.json) jsonRenderer(write)(startEvent('install', dryRun));
  const shown: EngineEvent[] = [];
  const emit = (event: EngineEvent) => {
    if (flags.planOut !== undefined) shown.push(event);
    if (view === undefined) return plain(event);
    if (event.type === 'step-start')
      view.complete('preflight', 'Checked the host, Core and the release');
    view.emit(event);
  };
  // OPS-03: the first Ctrl-C, SIGTERM or SIGHUP stops the run at a step boundary.
  const interruption = interruptOnSignals();
  const result = await install({ ...request, signal: interruption.signal }, emit)
    .catch(async (error: unknown) => {
      await view?.finish(error);
      // OPS-02: --json ends with the failure's code and hint as an event of its own.
      if (flags.json) jsonRenderer(write)(errorEvent(error));
      throw error;
    })
    .finally(() => interruption.release());
  await view?.finish();
  if (flags.planOut !== undefined) await savePlan(flags.planOut, result, shown);
  const summary = summaryOf(request.installationId, result);
  if (flags.json) jsonRenderer(write)(summary);
  else if (dryRun) {
    write(result.report.changed ? 'Changes would be made.\n' : 'Nothing would change.\n');
    if (flags.planOut !== undefined) write(planSavedLine(flags.planOut));
  } else {
    const ready = `Node ${result.nodeId ?? ''} is connected and ready.`;
    const more = [`Status: ${summary.status}`, `Logs: ${summary.logs}`];
    // The node ID is Core's word (SEC-09: escaped like every line from outside).
    for (const line of quiet
      ? [ready]
      : [ready, ...more, ...summary.notes.map((n) => `Note: ${n}`)])
      write(`${printable(line)}\n`);
  }
  if (dryRun && result.report.changed) throw new ExitStatus(EXIT.changesPending);
}

/** The last --json event of a finished install, dry run or apply. */
export function summaryOf(
  installationId: InstallationId,
  result: { report: { changed: boolean }; nodeId?: string; provider?: 'docker' | 'microsandbox' },
) {
  const unit = layout(installationId).unitName;
  // SEC-08: a Docker node's account can do as root does through the docker group.
  const notes =
    result.provider === 'docker'
      ? [`${message('docker_group_root')}: ${hint('docker_group_root') ?? ''}`]
      : [];
  return {
    type: 'summary',
    changed: result.report.changed,
    node_id: result.nodeId ?? null,
    unit,
    status: `sudo systemctl status ${unit}`,
    logs: `sudo journalctl -u ${unit}`,
    notes,
  };
}

/** DECL-05: the plan this dry run showed, with what it was made from, as a root-only file. */
async function savePlan(path: string, result: InstallResult, shown: EngineEvent[]): Promise<void> {
  if (result.plan === undefined) throw new Error('a dry run with --plan-out returns its plan');
  await writePlanFile(path, {
    format: PLAN_FORMAT,
    command: 'install',
    created_at: new Date().toISOString(),
    options: result.plan.options,
    ...(result.provider === undefined ? {} : { provider: result.provider }),
    steps: result.plan.steps,
    changed: result.report.changed,
    fingerprint: result.plan.fingerprint,
    events: shownEvents(shown),
  });
}

/** TRUST-01: the pin given (checked before the token is read), `none` for the host's trust
 *  store, or undefined: the node's recorded pin, which install looks up first. */
export function corePinArg(
  value: string | undefined,
  coreOrigin: string,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === NO_PIN) return null;
  return parseCorePin(value, coreOrigin);
}

/** The operator's bundle, open for the whole run (the node half reads it by descriptor). */
export async function openBundle(path: string): Promise<Bundle & { close(): Promise<void> }> {
  let file;
  try {
    file = await openBundleFile(path);
  } catch (error) {
    const reason = isCode(error, 'ENOENT')
      ? 'no such file'
      : isCode(error, 'ENOTREG')
        ? 'not a regular file'
        : `it cannot be read (${(error as { code?: string }).code ?? 'error'})`;
    throw oacError('bundle_unreadable', { path, reason });
  }
  try {
    return { ...(await readBundle(file.fd, file.size, path)), close: file.close };
  } catch (error) {
    await file.close();
    throw error;
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

// One token and its line end, with room to spare; more is not a token (SEC-04).
const TOKEN_STDIN_MAX_BYTES = 4096;

/** The token from stdin, checked against Core's token schema before any use (SEC-04); nothing
 *  (a rerun of a registered node) is undefined. A refusal never echoes what arrived. */
export function tokenFromStdin(text: string): string | undefined {
  const token = text.trim();
  if (token === '') return undefined;
  // Masked from here on, even if it is no token: it may be one with a stray character.
  redactor.add(token);
  if (!enrollmentToken.safeParse(token).success)
    throw new UsageError(
      "Standard input must hold only the enrollment token: 16 to 512 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'",
    );
  return token;
}

function refuseTokenInEnvironment(): never {
  throw oacError('token_in_environment');
}
