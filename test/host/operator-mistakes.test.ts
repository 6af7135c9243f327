// Issue #25 item 1: what an operator gets wrong first, each with the exact line the executable
// answers, its hint (or none), its exit status, and the host unchanged. The built executable
// runs with --root on a scratch tree (nothing of this machine is touched); every row is a
// mistake seen or expected of a real operator: options left out or mistyped, a URL without its
// scheme or with a path, a duration with a unit, a token in the wrong place, a mistyped command
// or installation ID, a plan file in the wrong state, no root.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createConnection, createServer } from 'node:net';
import { requireExecutable } from '../helpers/executable.ts';
import { makeTestCertificate } from '../helpers/proxy.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

const ID = '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f';
const TOKEN = 'oac_enr_0123456789abcdef0123456789abcdef';
const SHA = 'a'.repeat(64);
/** The run's own lock file (made by any run that takes the installer lock): not a change. */
const LOCK = /^run\/oac-node(\/installer\.lock)?$/;

let exe: string;
let root: string;
let plans: string;
/** A Core address behind a self-signed certificate: openssl's own TLS server, in a process of
 *  its own (the rows run the executable synchronously, and this process could not answer). */
let privateCa: ChildProcess | undefined;
let privateCaPort = 0;
before(async () => {
  exe = requireExecutable();
  root = makeScratchRoot();
  plans = mkdtempSync(join(tmpdir(), 'oac-plans-'));
  chmodSync(plans, 0o700);
  writeFileSync(join(plans, 'open.plan'), '{}\n', { mode: 0o666 });
  chmodSync(join(plans, 'open.plan'), 0o666);
  writeFileSync(join(plans, 'text.plan'), 'not a plan\n', { mode: 0o600 });
  const certificate = await makeTestCertificate('localhost');
  writeFileSync(join(plans, 'tls.key'), certificate.key, { mode: 0o600 });
  writeFileSync(join(plans, 'tls.crt'), certificate.cert);
  privateCaPort = await freePort();
  privateCa = spawn(
    'openssl',
    [
      ...['s_server', '-quiet', '-www', '-accept', `127.0.0.1:${privateCaPort}`],
      ...['-cert', join(plans, 'tls.crt'), '-key', join(plans, 'tls.key')],
    ],
    { stdio: 'ignore' },
  );
  await untilListening(privateCaPort);
});
after(() => {
  privateCa?.kill();
  rmSync(root, { recursive: true, force: true });
  rmSync(plans, { recursive: true, force: true });
});

interface Mistake {
  mistake: string;
  /** The arguments after the executable; `R` stands for the scratch root. */
  args: string[];
  stdin?: string;
  env?: Record<string, string>;
  /** Run as nobody (setpriv), not root. */
  asNobody?: boolean;
  status: number;
  /** The first line of stderr, exactly; for a run that succeeds, a line of stdout after its
   *  steps' lines. */
  line: string;
  /** The hint line, exactly, or null for none. */
  hint: string | null;
  /** Where the answer is: stderr (default) or stdout. */
  on?: 'stdout';
  /** Requirement IDs besides issue #25's. */
  ids?: string;
}

const install = (...more: string[]) => [
  'install',
  '--core-url',
  'https://core.example',
  '--installation-id',
  ID,
  '--root',
  'R',
  ...more,
];
const withCore = (url: string, ...more: string[]) => [
  'install',
  '--core-url',
  url,
  '--installation-id',
  ID,
  '--root',
  'R',
  ...more,
];
const URL_HINT =
  'Write the whole address as Web shows it, such as https://core.example.com or https://core.example.com:8443.';
const TIMEOUT = (v: string) =>
  `oac-node: --timeout takes seconds (300) or a duration such as 300s, 5m or 1h, from 1 s to 24 h: ${v}`;
const PLAN_HINT = 'Make the plan again with install … --plan-out FILE.';
const PATH_LINE = (flag: string) =>
  `oac-node: ${flag} takes a path: not empty, without control characters, at most 4096 characters`;

const MISTAKES: Mistake[] = [
  {
    mistake: 'install without --core-url',
    args: ['install', '--installation-id', ID, '--root', 'R'],
    status: 64,
    line: 'oac-node: --core-url is required',
    hint: null,
  },
  {
    mistake: 'install without --installation-id',
    args: ['install', '--core-url', 'https://core.example', '--root', 'R'],
    status: 64,
    line: 'oac-node: --installation-id is required',
    hint: null,
  },
  {
    mistake: 'a Core URL without its scheme (core.example:8443)',
    args: withCore('core.example:8443'),
    status: 64,
    line: 'oac-node: The Core URL is not a usable URL: core.example:8443 (no https:// in front)',
    hint: URL_HINT,
  },
  {
    mistake: 'a Core URL with a path (https://core.example/api/)',
    args: withCore('https://core.example/api/'),
    status: 64,
    line: "oac-node: The Core URL is not a usable URL: https://core.example/api/ (a path; Core's URL is its origin only, such as https://core.example)",
    hint: URL_HINT,
  },
  {
    mistake: 'a Core URL with a query',
    args: withCore('https://core.example/?token=s3cret'),
    status: 64,
    line: "oac-node: The Core URL is not a usable URL: https://core.example/ (a query; Core's URL is its origin only, such as https://core.example)",
    hint: URL_HINT,
  },
  {
    mistake: 'plain http to a Core that is not on loopback',
    args: withCore('http://core.example'),
    status: 64,
    line: 'oac-node: The Core URL must use https (plain http is allowed only for loopback addresses): http://core.example',
    hint: null,
    ids: 'SEC-01',
  },
  {
    mistake: 'an ftp:// Core URL',
    args: withCore('ftp://core.example'),
    status: 64,
    line: 'oac-node: The Core URL must use https (plain http is allowed only for loopback addresses): ftp://core.example',
    hint: null,
    ids: 'SEC-01',
  },
  {
    mistake: 'a user and password in the Core URL (never echoed)',
    args: withCore('https://admin:s3cret@core.example'),
    status: 64,
    line: 'oac-node: The Core URL is not a usable URL: https://core.example (a user name or password in it; credentials never go in a URL)',
    hint: URL_HINT,
    ids: 'SEC-03',
  },
  {
    mistake: 'a user and password in a Core URL without its scheme (never echoed)',
    args: withCore('admin:s3cret@core.example'),
    status: 64,
    line: 'oac-node: The Core URL is not a usable URL: …@core.example (no https:// in front)',
    hint: URL_HINT,
    ids: 'SEC-03',
  },
  {
    mistake: 'a password with / and @ in a Core URL without its scheme (never echoed)',
    args: withCore('admin:s3/cr@t@core.example'),
    status: 64,
    line: 'oac-node: The Core URL is not a usable URL: …@core.example (no https:// in front)',
    hint: URL_HINT,
    ids: 'SEC-03',
  },
  {
    mistake: 'a blank before the Core URL (taken, as URL takes it)',
    args: withCore(' http://core.example'),
    status: 64,
    line: 'oac-node: The Core URL must use https (plain http is allowed only for loopback addresses): http://core.example',
    hint: null,
  },
  {
    mistake: 'a Core that is not there (the hint names the address to check)',
    args: withCore('http://127.0.0.1:9'),
    stdin: `${TOKEN}\n`,
    status: 1,
    line: 'oac-node: Cannot reach Core at http://127.0.0.1:9: connection refused (GET /api/v1/sandbox-node/configuration)',
    hint: "Check that this is Core's address as Web shows it (scheme, host name, port), then the host's network and proxy settings, and run the command again.",
  },
  {
    mistake: '--timeout 5m (yargs alone read it as NaN): taken, the run goes on to ask Core',
    args: withCore('http://127.0.0.1:9', '--timeout', '5m'),
    stdin: `${TOKEN}\n`,
    status: 1,
    line: 'oac-node: Cannot reach Core at http://127.0.0.1:9: connection refused (GET /api/v1/sandbox-node/configuration)',
    hint: "Check that this is Core's address as Web shows it (scheme, host name, port), then the host's network and proxy settings, and run the command again.",
  },
  {
    mistake: 'a Core under a private CA, and no --core-pin (the hint names it)',
    args: withCore('https://localhost:PRIVATE_CA_PORT'),
    stdin: `${TOKEN}\n`,
    status: 1,
    line: "oac-node: Core's certificate at https://localhost:PRIVATE_CA_PORT is not trusted by this host: TLS: DEPTH_ZERO_SELF_SIGNED_CERT (GET /api/v1/sandbox-node/configuration)",
    hint: 'A Core with a private CA or a self-signed certificate needs its key pinned: --core-pin sha256:… as Web shows it (docs/private-ca.md). Otherwise check the address and the host clock.',
    ids: 'TRUST-01',
  },
  {
    mistake: '--timeout with a unit yargs cannot read (5x)',
    args: install('--timeout', '5x'),
    status: 64,
    line: TIMEOUT('5x'),
    hint: null,
  },
  {
    mistake: '--timeout 0',
    args: install('--timeout', '0'),
    status: 64,
    line: TIMEOUT('0'),
    hint: null,
  },
  {
    mistake: '--timeout beyond a day (25h)',
    args: install('--timeout', '25h'),
    status: 64,
    line: TIMEOUT('25h'),
    hint: null,
  },
  {
    mistake: 'a path as the installation ID (../x)',
    args: withCore('https://core.example').map((a) => (a === ID ? '../x' : a)),
    status: 64,
    line: "oac-node: --installation-id must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
    hint: null,
    ids: 'SEC-10',
  },
  {
    mistake: 'a --core-pin that is not sha256:<hex>',
    args: install('--core-pin', 'abc'),
    status: 64,
    line: "oac-node: --core-pin must be sha256: and 64 lowercase hexadecimal digits (the SHA-256 of Core's CA public key, as Web prints it), or none",
    hint: null,
    ids: 'TRUST-01',
  },
  {
    mistake: 'a --core-pin for a plain-http Core',
    args: withCore('http://127.0.0.1:9', '--core-pin', `sha256:${SHA}`),
    status: 64,
    line: 'oac-node: --core-pin goes with an https Core URL (plain http has no key to pin)',
    hint: null,
    ids: 'TRUST-01',
  },
  {
    mistake: 'a relative --checkpoint-root',
    args: install('--checkpoint-root', 'data/ckpt'),
    status: 64,
    line: 'oac-node: --checkpoint-root must be an absolute path of [A-Za-z0-9._@+-] names, without . or .. (such as /srv/oac-checkpoints)',
    hint: null,
    ids: 'HOST-11',
  },
  {
    mistake: '--bundle without --manifest-sha256',
    args: install('--bundle', '/root/oac-node.bundle'),
    status: 64,
    line: "oac-node: --bundle needs --manifest-sha256: the SHA-256 of the bundle's manifest (64 lowercase hexadecimal digits), as oac-node bundle printed it",
    hint: null,
    ids: 'OFFLINE-01',
  },
  {
    mistake: '--manifest-sha256 without --bundle',
    args: install('--manifest-sha256', SHA),
    status: 64,
    line: 'oac-node: --manifest-sha256 goes with --bundle',
    hint: null,
    ids: 'OFFLINE-01',
  },
  {
    mistake: 'a bundle that is not there',
    args: install('--bundle', '/nonexistent/oac-node.bundle', '--manifest-sha256', SHA),
    status: 1,
    line: 'oac-node: The bundle /nonexistent/oac-node.bundle cannot be used: no such file',
    hint: 'Copy it again from the machine that made it, and check that its SHA-256 is the one oac-node bundle printed.',
    ids: 'OFFLINE-01',
  },
  {
    mistake: 'a --name with a tab in it',
    args: install('--name', 'a\tb'),
    status: 64,
    line: 'oac-node: --name must be 1 to 200 characters without control characters (default: the host name)',
    hint: null,
  },
  {
    mistake: 'a --name of 300 characters',
    args: install('--name', 'n'.repeat(300)),
    status: 64,
    line: 'oac-node: --name must be 1 to 200 characters without control characters (default: the host name)',
    hint: null,
  },
  {
    mistake: 'the token in an environment variable',
    args: install(),
    env: { OAC_TOKEN: TOKEN },
    status: 1,
    line: 'oac-node: The enrollment token must come on standard input, not from the environment',
    hint: "An environment variable set through sudo is recorded in sudo's log: run the command from Web as it is.",
    ids: 'SEC-03',
  },
  {
    mistake: 'no token on standard input for a first install',
    args: install(),
    status: 1,
    line: 'oac-node: No enrollment token arrived on standard input',
    hint: 'Run the command from Web as it is: it passes the token on standard input.',
    ids: 'BOOT-05',
  },
  {
    mistake: 'something else than the token on standard input',
    args: install(),
    stdin: 'export TOKEN=abc def\n',
    status: 64,
    line: "oac-node: Standard input must hold only the enrollment token: 16 to 512 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'",
    hint: null,
    ids: 'SEC-04',
  },
  {
    mistake: 'a mistyped command (instal)',
    args: ['instal', '--core-url', 'https://core.example', '--installation-id', ID],
    status: 64,
    line: "oac-node: Unknown command: instal; did you mean install? (see 'oac-node --help')",
    hint: null,
  },
  {
    mistake: 'a word that is no command',
    args: ['frobnicate'],
    status: 64,
    line: "oac-node: Unknown command: frobnicate (see 'oac-node --help')",
    hint: null,
  },
  {
    mistake: 'a mistyped option (--dryrun)',
    args: install('--dryrun'),
    status: 64,
    line: "oac-node: Unknown option --dryrun; did you mean --dry-run? (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: 'uninstall without --installation-id on a host that records none (with one: that one)',
    args: ['uninstall', '--root', 'R'],
    status: 4,
    line: 'oac-node: This host records no installation of oac-node',
    hint: 'Add a node with the line from Web (Nodes → Add node); one removed with uninstall --force has no credential here any more, and Web may still list its node: remove it there. Files an installation left without a record are named by its ID: oac-node uninstall --installation-id ID',
  },
  {
    mistake: 'uninstall of an ID this host has no record of (exit 0: idempotent)',
    args: ['uninstall', '--installation-id', ID, '--root', 'R', '--force'],
    status: 0,
    on: 'stdout',
    line: `This host has no record of installation ${ID}, and nothing was removed.`,
    hint: null,
    ids: 'UNI-02',
  },
  {
    mistake: 'status without --installation-id on a host that records none (with one: that one)',
    args: ['status', '--root', 'R'],
    status: 4,
    line: 'oac-node: This host records no installation of oac-node',
    hint: 'Add a node with the line from Web (Nodes → Add node); one removed with uninstall --force has no credential here any more, and Web may still list its node: remove it there. Files an installation left without a record are named by its ID: oac-node uninstall --installation-id ID',
  },
  {
    mistake: "the guide's older 'install --uninstall' form, without --core-url: the uninstall",
    args: ['install', '--uninstall', '--installation-id', ID, '--force', '--root', 'R'],
    status: 0,
    on: 'stdout',
    line: `This host has no record of installation ${ID}, and nothing was removed.`,
    hint: null,
    ids: 'BOOT-07',
  },
  {
    mistake: 'a yargs complaint under another LANG is still in English, in one line',
    args: ['install', '--installation-id', ID, '--root', 'R'],
    env: { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' },
    status: 64,
    line: 'oac-node: --core-url is required',
    hint: null,
  },
  {
    mistake: 'status of an ID this host has no record of',
    args: ['status', '--installation-id', ID, '--root', 'R'],
    status: 4,
    line: `oac-node: No node of installation ${ID} is recorded on this host`,
    hint: 'Check the installation ID (ls /etc/oac-node). One removed with uninstall --force has no credential here any more, and Web may still list its node: remove it there (Nodes).',
  },
  {
    mistake: 'show-plan of a file that is not there',
    args: ['show-plan', '/nonexistent/node.plan'],
    status: 1,
    line: 'oac-node: The plan file /nonexistent/node.plan does not exist',
    hint: PLAN_HINT,
    ids: 'DECL-05',
  },
  {
    mistake: 'apply of a plan others can write',
    args: ['apply', 'PLANS/open.plan'],
    status: 1,
    line: "oac-node: The plan file PLANS/open.plan is not root's alone (owned by root, writable by no one else)",
    hint: PLAN_HINT,
    ids: 'DECL-05',
  },
  {
    mistake: 'show-plan of a file that is no plan',
    args: ['show-plan', 'PLANS/text.plan'],
    status: 1,
    line: 'oac-node: The plan file PLANS/text.plan is not a plan of this installer: not JSON',
    hint: PLAN_HINT,
    ids: 'DECL-05',
  },
  {
    mistake: 'install with an empty --plan-out (a variable that was never set)',
    args: install('--plan-out', ''),
    status: 64,
    line: PATH_LINE('--plan-out'),
    hint: null,
  },
  {
    mistake: 'uninstall with an empty --plan-out',
    args: ['uninstall', '--installation-id', ID, '--root', 'R', '--plan-out', ''],
    status: 64,
    line: PATH_LINE('--plan-out'),
    hint: null,
  },
  {
    mistake: 'install with a --bundle path holding a line break',
    args: install('--bundle', '/root/oac.bundle\n', '--manifest-sha256', SHA),
    status: 64,
    line: PATH_LINE('--bundle'),
    hint: null,
    ids: 'OFFLINE-01',
  },
  {
    mistake: 'bundle with a console URL of another scheme (ftp://)',
    args: ['bundle', '--console-url', 'ftp://core.example', '--release', '0.1.0', '--out', 'x'],
    status: 64,
    line: 'oac-node: The console URL must use https (plain http is allowed only for loopback addresses): ftp://core.example',
    hint: null,
    ids: 'OFFLINE-01',
  },
  {
    mistake: 'bundle with an empty --out',
    args: ['bundle', '--console-url', 'https://core.example', '--release', '0.1.0', '--out', ''],
    status: 64,
    line: PATH_LINE('--out'),
    hint: null,
    ids: 'OFFLINE-01',
  },
  {
    mistake: 'register by hand with an empty --state-dir',
    args: [
      ...['register', '--config', '/root/provider.json', '--state-dir', ''],
      ...['--core-url', 'https://core.example', '--name', 'worker-1'],
      ...['--enrollment-token-file', '/root/token'],
    ],
    status: 64,
    line: PATH_LINE('--state-dir'),
    hint: null,
  },
  {
    mistake: 'run by hand with an empty --config',
    args: ['run', '--config', '', '--state-dir', '/root/node'],
    status: 64,
    line: PATH_LINE('--config'),
    hint: null,
  },
  // Issue #39 item 8: what yargs said in its own words, now one line of ours naming the fix and
  // the help of the command it was given to.
  {
    mistake: 'a shell completion has no script for (completion tcsh)',
    args: ['completion', 'tcsh'],
    status: 64,
    line: `oac-node: shell must be bash, zsh or fish, not "tcsh" (see 'oac-node completion --help')`,
    hint: null,
  },
  {
    mistake: 'a provider oac-node does not know (bundle --provider podman)',
    args: [
      ...['bundle', '--console-url', 'https://core.example', '--release', '1.0.0'],
      ...['--out', 'PLANS/b.tar', '--provider', 'podman'],
    ],
    status: 64,
    line: `oac-node: --provider must be docker or microsandbox, not "podman" (see 'oac-node bundle --help')`,
    hint: null,
  },
  {
    mistake: 'apply without the plan file',
    args: ['apply'],
    status: 64,
    line: "oac-node: apply needs FILE: oac-node apply FILE (see 'oac-node apply --help')",
    hint: null,
  },
  {
    mistake: 'show-plan without the plan file',
    args: ['show-plan'],
    status: 64,
    line: "oac-node: show-plan needs FILE: oac-node show-plan FILE (see 'oac-node show-plan --help')",
    hint: null,
  },
  {
    mistake: 'status --installation-id without its value',
    args: ['status', '--installation-id', '--root', 'R'],
    status: 64,
    line: "oac-node: --installation-id needs a value (see 'oac-node status --help')",
    hint: null,
  },
  {
    mistake: 'uninstall --installation-id as the last word',
    args: ['uninstall', '--root', 'R', '--installation-id'],
    status: 64,
    line: "oac-node: --installation-id needs a value (see 'oac-node uninstall --help')",
    hint: null,
  },
  {
    mistake: 'install --timeout without its value',
    args: install('--timeout'),
    status: 64,
    line: "oac-node: --timeout needs a value (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: '--installation-id given twice',
    args: ['status', '--installation-id', ID, '--installation-id', 'other', '--root', 'R'],
    status: 64,
    line: "oac-node: --installation-id is given 2 times: give it once (see 'oac-node status --help')",
    hint: null,
  },
  {
    mistake: '--core-url mistyped (--core-ur): named, not taken for a missing --core-url',
    args: ['install', '--core-ur', 'https://core.example', '--installation-id', ID, '--root', 'R'],
    status: 64,
    line: "oac-node: Unknown option --core-ur; did you mean --core-url? (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: 'status --jsn',
    args: ['status', '--jsn', '--root', 'R'],
    status: 64,
    line: "oac-node: Unknown option --jsn; did you mean --json? (see 'oac-node status --help')",
    hint: null,
  },
  {
    mistake: 'a word status does not take (status everything)',
    args: ['status', 'everything', '--root', 'R'],
    status: 64,
    line: `oac-node: status takes options only, not "everything" (see 'oac-node status --help')`,
    hint: null,
  },
  {
    mistake: 'help for a mistyped command (help instal)',
    args: ['help', 'instal'],
    status: 64,
    line: "oac-node: Unknown command: instal; did you mean install? (see 'oac-node --help')",
    hint: null,
  },
  {
    mistake: 'command without --core-url',
    args: ['command', '--installation-id', ID],
    status: 64,
    line: 'oac-node: --core-url is required',
    hint: null,
  },
  {
    mistake: 'bundle without --out',
    args: ['bundle', '--console-url', 'https://core.example', '--release', '1.0.0'],
    status: 64,
    line: 'oac-node: --out is required',
    hint: null,
  },
  {
    mistake: 'run by hand without --state-dir',
    args: ['run', '--config', '/x'],
    status: 64,
    line: 'oac-node: --state-dir is required',
    hint: null,
  },
  {
    mistake: 'version with an option it does not take (version --short)',
    args: ['version', '--short'],
    status: 64,
    line: "oac-node: Unknown option --short (see 'oac-node version --help')",
    hint: null,
  },
  {
    mistake: 'apply of a directory',
    args: ['apply', 'PLANS'],
    status: 1,
    line: 'oac-node: The plan file PLANS is not a regular file',
    hint: PLAN_HINT,
  },
  {
    mistake: '--plan-out given twice',
    args: install('--plan-out', 'PLANS/a.plan', '--plan-out', 'PLANS/b.plan'),
    status: 64,
    line: "oac-node: --plan-out is given 2 times: give it once (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: "a second --core-url after the line's own",
    args: install('--core-url', 'https://other.example'),
    status: 64,
    line: "oac-node: --core-url is given 2 times: give it once (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: 'completion for two shells at once',
    args: ['completion', 'bash', 'zsh'],
    status: 64,
    line: `oac-node: completion takes one SHELL, not also "zsh" (see 'oac-node completion --help')`,
    hint: null,
  },
  {
    mistake: 'show-plan of two files',
    args: ['show-plan', 'PLANS/a.plan', 'PLANS/b.plan'],
    status: 64,
    line: `oac-node: show-plan takes one FILE, not also "PLANS/b.plan" (see 'oac-node show-plan --help')`,
    hint: null,
  },
  {
    mistake: 'status --installation-id= (a variable that was never set)',
    args: ['status', '--installation-id=', '--root', 'R'],
    status: 64,
    line: "oac-node: --installation-id is empty: give the installation's ID, as the line from Web names it",
    hint: null,
  },
  {
    mistake: 'install --name as the last word',
    args: install('--name'),
    status: 64,
    line: "oac-node: --name needs a value (see 'oac-node install --help')",
    hint: null,
  },
  {
    mistake: 'uninstall --plan-out without its value',
    args: ['uninstall', '--installation-id', ID, '--root', 'R', '--plan-out'],
    status: 64,
    line: "oac-node: --plan-out needs a value (see 'oac-node uninstall --help')",
    hint: null,
  },
  {
    mistake: 'status without sudo (issue #39: status is neither installation nor removal)',
    args: ['status'],
    asNobody: true,
    status: 1,
    line: "oac-node: A node's status is read from its root-only record, and needs root",
    hint: 'Run it with sudo: sudo oac-node status',
    ids: 'OPS-02',
  },
  {
    mistake: 'install without root',
    args: install(),
    asNobody: true,
    status: 1,
    line: 'oac-node: Node installation and removal require root',
    hint: 'Run the command from Web as it is: it uses sudo, or run it in a root shell.',
    ids: 'PRE-01',
  },
];

const fill = (text: string) =>
  text.replaceAll('PLANS', plans).replaceAll('PRIVATE_CA_PORT', String(privateCaPort));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function untilListening(port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.destroy() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`openssl s_server did not listen on ${port}`);
}

test(`issue #25 ${MISTAKES.length} operator mistakes: each gets its exact line, hint and exit status, and the host is unchanged`, async (t) => {
  assert.ok(MISTAKES.length >= 70, 'at least 70 mistakes (issue #39)');
  for (const m of MISTAKES)
    await t.test(`${m.ids ?? ''} ${m.mistake}`.trim(), () => {
      const before = treeOf(root, LOCK);
      const args = m.args.map((a) => (a === 'R' ? root : fill(a)));
      const [command, argv] = m.asNobody
        ? ['setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', exe, ...args]]
        : [exe, args];
      const run = spawnSync(command, argv, {
        input: m.stdin ?? '',
        encoding: 'utf8',
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...m.env },
        timeout: 60_000,
      });
      const said = `${run.stdout}${run.stderr}`;
      assert.equal(run.status, m.status, said);
      const lines = (m.on === 'stdout' ? run.stdout : run.stderr).trimEnd().split('\n');
      if (m.on === 'stdout') assert.ok(lines.includes(fill(m.line)), said);
      else {
        assert.equal(lines[0], fill(m.line), said);
        assert.deepEqual(lines.slice(1), m.hint === null ? [] : [`  hint: ${m.hint}`], said);
        assert.equal(run.stdout, '', 'nothing on stdout');
      }
      assert.doesNotMatch(said, /s3cr|oac_enr_/, 'no password or token is echoed');
      assert.deepEqual(treeOf(root, LOCK), before, 'the host is unchanged');
    });
});
