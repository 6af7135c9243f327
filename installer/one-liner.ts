// The one-line install and uninstall commands that Web prints (BOOT-01…07, issue #4 item 1).
// Pure string code: it validates every value it embeds, single-quotes each one, and returns ONE
// line of POSIX sh that passes `shellcheck -s sh` and runs under dash and bash.
// docs/one-line-command.md shows the same line annotated, piece by piece.
import { PROXY_VARIABLES } from '../src/net/proxy-env.ts';
import { enrollmentToken } from '../src/net/core-schemas.ts';
import * as z from 'zod';
import { isInstallationId } from '../src/layout.ts';
import { UsageError, isOacError } from '../src/errors.ts';
import { isLoopbackHost, parseServiceUrl } from '../src/net/url-policy.ts';

export interface InstallCommandInput {
  /** Where the console serves `/node-install/oac-node.gz` (Core's origin in the product). */
  consoleUrl: string;
  /** Core's public URL, passed to the installer as `--core-url`. */
  coreUrl: string;
  installationId: string;
  /** SHA-256 of `oac-node.gz`, as the console's `/node-install/SHA256SUMS` lists it. */
  installerSha256: string;
  /** The enrollment token; it reaches the installer on standard input only (BOOT-05). */
  token: string;
}

export interface UninstallCommandInput {
  consoleUrl: string;
  installationId: string;
  installerSha256: string;
  /** Skip asking Core whether the node was removed (UNI-01). */
  force?: boolean;
}

/** BOOT-04: the names sudo is asked to preserve, exactly the six of DL-04 and nothing else. */
export const PROXY_NAMES = PROXY_VARIABLES;

/** BOOT-02: the tools checked before anything is downloaded (plus sudo when not root). */
export const REQUIRED_TOOLS = ['curl', 'sha256sum', 'flock', 'gzip'] as const;

/** The line's own exit statuses (sysexits.h); any other status is the installer's (or sudo's). */
export const LINE_EXIT = {
  checksumMismatch: 65, // EX_DATAERR
  unsupportedHost: 69, // EX_UNAVAILABLE: not Linux x86-64, or a tool is missing
  cannotWrite: 73, // EX_CANTCREAT: ~/.oac/node-bootstrap cannot be created, or unpacking failed
  downloadFailed: 75, // EX_TEMPFAIL: three tries failed, or another command held the lock too long
  consoleRefused: 76, // EX_PROTOCOL: the console answered a status that retrying cannot fix
} as const;

/** The directory under $HOME that keeps the verified installers (BOOT-03). */
export const BOOTSTRAP_DIR = '.oac/node-bootstrap';
export const DOWNLOAD_TRIES = 3;
/** How long a second command waits for another one that holds the bootstrap lock. */
export const LOCK_WAIT_SECONDS = 600;

// Word for word what the operator reads (BOOT-02, BOOT-06). `$t` and `$a` are filled in by the
// shell; nothing secret ever is.
export const LINE_MESSAGES = {
  unsupportedHost: 'oac-node: this command needs Linux on x86-64 (amd64); this host is $a',
  missingTool: 'oac-node: this command needs $t; install it and run the command again',
  cannotCreate: 'oac-node: cannot create the private directory $d',
  waiting: 'oac-node: waiting for another oac-node command that is using $d',
  lockTimeout: `oac-node: another oac-node command has been using $d for ${LOCK_WAIT_SECONDS / 60} minutes; run this command again when it has finished`,
  downloading: 'oac-node: downloading the installer',
  consoleRefused:
    'oac-node: the console answered HTTP $h for the installer; copy a fresh command from Web and run it again',
  downloadFailed: `oac-node: downloading the installer failed ${DOWNLOAD_TRIES} times; check the network and proxy settings, then run the command again`,
  checksumMismatch:
    "oac-node: the downloaded installer does not match this command's checksum; copy a fresh command from Web and run it again",
  cannotUnpack: 'oac-node: cannot unpack the installer into $d',
} as const;

// ---------------------------------------------------------------------------------------------
// Validation (SEC-01, SEC-04). Each refusal is one line naming the value to fix; a token is
// never repeated back (SEC-03).

const sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
const tokenSchema = enrollmentToken;
// What a rendered URL may hold: no quote, `$`, backquote, `!` (history expansion), space or
// control character, so the line stays readable and safe even before quoting.
const URL_CHARS = /^[A-Za-z0-9._~:/%[\]-]+$/;

export function validateInstallationId(value: string): string {
  // SEC-10's rule, from the one module that names an installation's paths.
  if (!isInstallationId(value)) {
    throw new UsageError(
      "The installation ID must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
    );
  }
  return value;
}

export function validateSha256(value: string): string {
  if (!sha256Schema.safeParse(value).success) {
    throw new UsageError("The installer's SHA-256 must be 64 lowercase hexadecimal digits");
  }
  return value;
}

export function validateToken(value: string): string {
  if (!tokenSchema.safeParse(value).success) {
    throw new UsageError(
      "The enrollment token must be 16 to 512 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'",
    );
  }
  return value;
}

/** Core's public URL as the installer compares it: the origin (SEC-01). */
export function validateCoreUrl(raw: string): string {
  const url = serviceUrl(raw, 'The Core URL');
  if (url.pathname !== '/') {
    throw new UsageError(`The Core URL must be an origin without a path: ${url.origin}`);
  }
  return safeUrlText(url.origin, 'The Core URL');
}

/** The console's base URL, without a trailing slash (a path prefix is allowed). */
export function validateConsoleUrl(raw: string): string {
  const url = serviceUrl(raw, 'The console URL');
  return safeUrlText(url.origin + url.pathname.replace(/\/+$/, ''), 'The console URL');
}

function serviceUrl(raw: string, what: string): URL {
  let url: URL;
  try {
    url = parseServiceUrl(raw, what);
  } catch (error) {
    // Bad input on the command line: exit 2 with the policy's own line.
    if (isOacError(error)) throw new UsageError(error.message);
    throw error;
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${what} must not have a query or a fragment: ${url.origin}`);
  }
  return url;
}

function safeUrlText(text: string, what: string): string {
  if (!URL_CHARS.test(text)) {
    throw new UsageError(`${what} holds characters this command does not embed: ${text}`);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Quoting. Every embedded value goes through shQuote even though validation already excludes
// quotes, `$`, backquotes and newlines: one single-quoted word per value, `'` written as `'\''`,
// so no value can leave its word even if a pattern above were loosened.

export function shQuote(value: string): string {
  if (value.includes('\0')) throw new Error('a shell word cannot hold a NUL byte');
  return `'${value.replaceAll("'", "'\\''")}'`;
}

// ---------------------------------------------------------------------------------------------
// Rendering.

export function renderInstallCommand(input: InstallCommandInput): string {
  const consoleUrl = validateConsoleUrl(input.consoleUrl);
  const coreUrl = validateCoreUrl(input.coreUrl);
  const installationId = validateInstallationId(input.installationId);
  const sha256 = validateSha256(input.installerSha256);
  const token = validateToken(input.token);
  return renderLine({
    consoleUrl,
    sha256,
    installerArgs: `install --core-url ${shQuote(coreUrl)} --installation-id ${shQuote(installationId)}`,
    // BOOT-05: the only place the token appears. printf is a builtin in dash, bash, zsh and
    // busybox ash, so the token is never a process argument; the pipe is the installer's stdin.
    run: `printf '%s\\n' ${shQuote(token)} | "$@"`,
  });
}

export function renderUninstallCommand(input: UninstallCommandInput): string {
  const consoleUrl = validateConsoleUrl(input.consoleUrl);
  const installationId = validateInstallationId(input.installationId);
  const sha256 = validateSha256(input.installerSha256);
  const force = input.force === true ? ' --force' : '';
  return renderLine({
    consoleUrl,
    sha256,
    installerArgs: `uninstall --installation-id ${shQuote(installationId)}${force}`,
    // Nothing to read: the uninstaller gets an empty stdin, never the rest of a piped script.
    run: '"$@" </dev/null',
  });
}

interface LineParts {
  consoleUrl: string; // validated
  sha256: string; // validated
  installerArgs: string; // already quoted
  run: string;
}

// One statement per element; joined with '; ' into one line. docs/one-line-command.md has the
// same statements one per line with their reasons. `!` is never used (interactive bash and zsh
// would expand history), nor a word starting with `=` (zsh would expand it).
function renderLine(parts: LineParts): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const fail = (text: string, status: number): string => `{ ${say(text)}; exit ${status}; }`;
  const M = LINE_MESSAGES;
  const E = LINE_EXIT;
  const installerUrl = `${parts.consoleUrl}/node-install/oac-node.gz`;
  // SEC-01: an https console allows https only, redirects included; plain http only happens for
  // a loopback console (tests, the demo), which may still redirect to https. A loopback console
  // is reached directly, never through a proxy (as DL-04 says for the installer's downloads).
  const protocols = installerUrl.startsWith('https:') ? "'=https'" : "'=http,https'";
  const direct = isLoopbackHost(new URL(installerUrl).hostname) ? " --noproxy '*'" : '';
  const curl = [
    `curl -q -sS -L${direct}`,
    `--proto ${protocols}`,
    // DL-03's floor for a stalled transfer: less than 64 KiB in a minute ends this try.
    '--connect-timeout 30 --speed-limit 1092 --speed-time 60',
    `-o "$p" -w '%{http_code}'`,
    shQuote(installerUrl),
  ].join(' ');
  const download = [
    say(M.downloading),
    'n=0',
    `while :; do n=$((n+1)); rm -f "$p"; h=$(${curl}); e=$?; [ "$e$h" = 0200 ] && break; ` +
      `case $e:$h in 0:408|0:429|0:5??|[1-9]*) ;; *) rm -f "$p"; ${say(M.consoleRefused)}; exit ${E.consoleRefused};; esac; ` +
      `[ "$n" -lt ${DOWNLOAD_TRIES} ] || { rm -f "$p"; ${say(M.downloadFailed)}; exit ${E.downloadFailed}; }; ` +
      'sleep "$n"; done',
    'v=$(sha256sum <"$p")',
    `[ "\${v%% *}" = "$s" ] || { rm -f "$p"; ${say(M.checksumMismatch)}; exit ${E.checksumMismatch}; }`,
    `{ gzip -d <"$p" >"$x.part" && chmod 0700 "$x.part" && mv -f "$x.part" "$x"; } || { rm -f "$p" "$x.part"; ${say(M.cannotUnpack)}; exit ${E.cannotWrite}; }`,
    'rm -f "$p"',
  ].join('; ');
  const statements = [
    // BOOT-01: a known shell state (no xtrace that would print the token, no noclobber, no
    // errexit: every failure is handled below), and private files from here on.
    'set +Ceux',
    'umask 077',
    // BOOT-02: Linux x86-64 and the tools, before anything is created or downloaded.
    'a="$(uname -s) $(uname -m)"',
    `case $a in 'Linux x86_64') ;; *) ${say(M.unsupportedHost)}; exit ${E.unsupportedHost};; esac`,
    'r=$(id -u)',
    `for t in ${REQUIRED_TOOLS.join(' ')} sudo; do [ "$t$r" = sudo0 ] || command -v "$t" >/dev/null 2>&1 || ${fail(M.missingTool, E.unsupportedHost)}; done`,
    // BOOT-03: the private directory, the names, and the lock.
    `s=${shQuote(parts.sha256)}`,
    `d="\${HOME:?}/${BOOTSTRAP_DIR}"`,
    'x="$d/$s"',
    'p="$x.gz.part"',
    `{ mkdir -p "$d" && chmod 0700 "$d" && command exec 9>"$d/lock"; } || ${fail(M.cannotCreate, E.cannotWrite)}`,
    `flock -n 9 || { ${say(M.waiting)}; flock -w ${LOCK_WAIT_SECONDS} 9; } || ${fail(M.lockTimeout, E.downloadFailed)}`,
    `[ -x "$x" ] || { ${download}; }`,
    'exec 9>&-',
    // BOOT-04/05: the installer's argv; NODE_OPTIONS cleared by env(1) in the process that
    // executes it, so also on sudo's far side; --no-color for NO_COLOR; sudo unless root.
    `set -- env -u NODE_OPTIONS "$x" ${parts.installerArgs}`,
    '[ -z "${NO_COLOR:-}" ] || set -- "$@" --no-color',
    `[ "$r" = 0 ] || set -- sudo --preserve-env=${PROXY_NAMES.join(',')} -- "$@"`,
    parts.run,
  ];
  return ` (${statements.join('; ')})`;
}
