// The one-line install and uninstall commands that Web prints (BOOT-01…07, issue #4 item 1).
// Pure string code: it validates every value it embeds and returns ONE line that every shell an
// operator pastes into parses the same way (issue #42: bash, dash, zsh, mksh, busybox ash, fish,
// tcsh): ` echo '<script>' | /bin/sh`. The script is POSIX sh that passes `shellcheck -s sh`; it
// holds no backslash (an `echo` builtin may read one as an escape) and no `!` (history expansion:
// csh and tcsh even inside single quotes), so the only quoting the operator's shell does
// is the one single-quoted word, whose `'` are written `'\''` as every one of those shells reads
// them. `echo` is a builtin in each, so the script (and the token in it) is never a process's
// argument. docs/one-line-command.md shows the same line annotated, piece by piece.
import { PROXY_VARIABLES } from '../src/net/proxy-env.ts';
import { enrollmentToken } from '../src/net/core-schemas.ts';
import { parseCorePin } from '../src/net/core-pin.ts';
import * as z from 'zod';
import { BOOTSTRAP_DIR, isInstallationId } from '../src/layout.ts';
import { LINE_EXIT, UsageError, isOacError } from '../src/errors.ts';
import { isLoopbackHost, parseServiceUrl } from '../src/net/url-policy.ts';

export interface InstallCommandInput {
  /** Where the console serves `/node-install/oac-node.gz` (Core's origin in the product). */
  consoleUrl: string;
  /** Core's public URL, passed to the installer as `--core-url`. */
  coreUrl: string;
  installationId: string;
  /**
   * SHA-256 of the executable `oac-node` (what `gzip -d` makes of `oac-node.gz`), as the
   * console's `/node-install/SHA256SUMS` lists it: the kept installer is named after it, so
   * `sha256sum` can check every kept file by its name (BOOT-03).
   */
  installerSha256: string;
  /** The enrollment token; it reaches the installer on standard input only (BOOT-05). */
  token: string;
  /** TRUST-01: the pin of Core's TLS key, `sha256:<hex>`; passed to the installer. */
  corePin?: string;
  /** OFFLINE-01: an absolute path on the host of a bundle (oac-node bundle) to take the
   *  installer and the release files from, instead of the console... */
  bundle?: string;
  /** ...and the SHA-256 of its manifest, as oac-node bundle printed it (required with it). */
  manifestSha256?: string;
}

export interface UninstallCommandInput {
  consoleUrl: string;
  installationId: string;
  installerSha256: string;
  /** Skip asking Core whether the node was removed (UNI-01). */
  force?: boolean;
  /** TRUST-01: Core is pinned; the installer itself reads the pin from the node's identity. */
  corePin?: string;
  /** OFFLINE-01: the installer comes from this bundle on the host. */
  bundle?: string;
}

/** DL-04: the six proxy names; the installer gets them, and no other variable of the operator's. */
export const PROXY_NAMES = PROXY_VARIABLES;

/** The locale categories of glibc's setlocale(3), each passed on when set (SEC-07). */
export const LOCALE_NAMES = [
  'LANG',
  'LC_ALL',
  'LC_ADDRESS',
  'LC_COLLATE',
  'LC_CTYPE',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NAME',
  'LC_NUMERIC',
  'LC_PAPER',
  'LC_TELEPHONE',
  'LC_TIME',
] as const;

/**
 * SEC-07: the operator's variables that reach the installer, when set in the environment.
 * Everything else (NODE_OPTIONS, NODE_TLS_REJECT_UNAUTHORIZED, OPENSSL_CONF, LD_PRELOAD, …) is
 * dropped by `env -i`. PATH and HOME are not taken from the operator: see SAFE_PATH and HOME in
 * FAR_SIDE.
 */
export const PASSED_NAMES = ['TERM', ...LOCALE_NAMES, 'NO_COLOR', ...PROXY_NAMES] as const;

/** The operator's side's pattern of PASSED_NAMES (ENV_LINES): the locale names as `LC_*`. */
const OPERATOR_NAMES = ['TERM', 'LANG', 'LC_*', 'NO_COLOR', ...PROXY_NAMES].join('|');

/**
 * The installer's PATH: fixed, root's usual one (sudo's secure_path on Debian), never the
 * operator's, whose directories a root process must not search (SEC-07). src/host runs tools
 * with the same PATH.
 */
export const SAFE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** BOOT-02: the tools checked before anything is downloaded (plus sudo when not root). */
export const REQUIRED_TOOLS = ['curl', 'sha256sum', 'flock', 'gzip'] as const;

/** The line's own exit statuses (sysexits.h); any other status is the installer's (or sudo's). */
export { LINE_EXIT };

export const DOWNLOAD_TRIES = 3;
/** TRUST-01: a pinned line's unverified download stops beyond this (curl exit 63: a retry). */
export const PINNED_DOWNLOAD_MAX_BYTES = 512 * 1024 * 1024;
/** How long a second command waits for another one that holds the bootstrap lock. */
export const LOCK_WAIT_SECONDS = 600;

// Word for word what the operator reads (BOOT-02, BOOT-06). `$t` and `$a` are filled in by the
// shell; nothing secret ever is.
export const LINE_MESSAGES = {
  unsupportedHost: 'oac-node: this command needs Linux on x86-64 (amd64); this host is $a',
  missingTool: 'oac-node: this command needs $t; install it and run the command again',
  cannotCreate: 'oac-node: cannot create the private directory $d',
  lockOpen: 'oac-node: cannot open the lock file $d/lock',
  lockFailed: 'oac-node: cannot lock $d/lock (flock ended with status $e)',
  noHome:
    'oac-node: cannot tell where this account keeps its files: HOME is not set and the user database names no home directory; set HOME and run the command again',
  waiting: 'oac-node: waiting for another oac-node command that is using $d',
  lockTimeout: `oac-node: another oac-node command has been using $d for ${LOCK_WAIT_SECONDS / 60} minutes; run this command again when it has finished`,
  downloading: 'oac-node: downloading the installer',
  consoleRefused:
    'oac-node: the console answered HTTP $h for the installer; copy a fresh command from Web and run it again',
  downloadFailed: `oac-node: downloading the installer failed ${DOWNLOAD_TRIES} times; check the network and proxy settings, then run the command again`,
  keptMismatch: 'oac-node: the kept installer $x does not match its checksum; downloading it again',
  checksumMismatch:
    'oac-node: the downloaded installer does not match the checksum in this command; copy a fresh command from Web and run it again',
  cannotUnpack: 'oac-node: cannot unpack the installer into $d',
  fromBundle: 'oac-node: taking the installer from the bundle $b',
  bundleMismatch:
    'oac-node: the installer in the bundle $b does not match the checksum in this command; the bundle is of another release, or damaged',
  bundleUnreadable:
    'oac-node: cannot take the installer out of the bundle $b; it is no bundle, or damaged: copy it again',
  bundleNotReadable:
    'oac-node: cannot read the bundle $b; check the path, and that this account can read it (a bundle under /root needs a root shell)',
  keptMismatchBundle:
    'oac-node: the kept installer $x does not match its checksum; taking it out of the bundle again',
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

/** OFFLINE-01: the bundle's manifest SHA-256, which a bundle line must carry. */
function bundleManifest(value: string | undefined): string {
  if (value === undefined || !sha256Schema.safeParse(value).success)
    throw new UsageError(
      'A bundle needs the SHA-256 of its manifest (--manifest-sha256, as oac-node bundle printed it): 64 lowercase hexadecimal digits',
    );
  return value;
}

/** OFFLINE-01: an absolute, normalised path the line can carry as is. */
export function validateBundlePath(value: string): string {
  const plain = /^(\/[A-Za-z0-9._@+-]+)+$/.test(value);
  if (!plain || value.split('/').some((part) => part === '.' || part === '..'))
    throw new UsageError(
      'The bundle must be an absolute path of [A-Za-z0-9._@+-] names, without . or .. (such as /root/oac-node.bundle)',
    );
  return value;
}

/** TRUST-01: `sha256:<hex>`, for an https Core (plain http has no key to pin). */
export function validateCorePin(value: string, coreUrl: string): string {
  return parseCorePin(value, coreUrl);
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

/** A validated value as one double-quoted word of the script: validation keeps `"`, `$`, a
 *  backquote, a backslash, `!` and line breaks out of every embedded value; this checks it, so
 *  no value can leave its word even if a pattern above were loosened. */
export function dqWord(value: string): string {
  if (/["$`\\!\r\n\0]/.test(value))
    throw new Error('a value of the line holds a character it does not embed');
  return `"${value}"`;
}

/** The script as the line's one single-quoted word (issue #42): no backslash and no `!` in it,
 *  which one of the shells would read differently; its `'` as `'\''`. */
function lineWord(script: string): string {
  if (/[\\!]/.test(script)) throw new Error('the line cannot hold a backslash or !');
  return shQuote(script);
}

// ---------------------------------------------------------------------------------------------
// Rendering.

export function renderInstallCommand(input: InstallCommandInput): string {
  const consoleUrl = validateConsoleUrl(input.consoleUrl);
  const coreUrl = validateCoreUrl(input.coreUrl);
  const installationId = validateInstallationId(input.installationId);
  const sha256 = validateSha256(input.installerSha256);
  const token = validateToken(input.token);
  const pin = input.corePin === undefined ? undefined : validateCorePin(input.corePin, coreUrl);
  const pinArg = pin === undefined ? '' : ` --core-pin ${dqWord(pin)}`;
  const bundle = input.bundle === undefined ? undefined : validateBundlePath(input.bundle);
  const bundleArg =
    bundle === undefined
      ? ''
      : ` --bundle ${dqWord(bundle)} --manifest-sha256 ${dqWord(bundleManifest(input.manifestSha256))}`;
  return renderLine({
    consoleUrl,
    sha256,
    pinned: pin !== undefined,
    ...(bundle === undefined ? {} : { bundle }),
    installerArgs: `install --core-url ${dqWord(coreUrl)}${pinArg}${bundleArg} --installation-id ${dqWord(installationId)}`,
    // BOOT-05: the only place the token appears, after the environment's lines on the same
    // stdin. printf is a builtin of /bin/sh (dash, bash, busybox ash), so the token is never a
    // process argument; what FAR_SIDE leaves of the pipe is the installer's stdin.
    run: `{ ${ENV_LINES}; printf %s ${dqWord(token)}; echo; } | "$@"`,
  });
}

export function renderUninstallCommand(input: UninstallCommandInput): string {
  const consoleUrl = validateConsoleUrl(input.consoleUrl);
  const installationId = validateInstallationId(input.installationId);
  const sha256 = validateSha256(input.installerSha256);
  const force = input.force === true ? ' --force' : '';
  if (input.corePin !== undefined) validateCorePin(input.corePin, 'https:');
  const bundle = input.bundle === undefined ? undefined : validateBundlePath(input.bundle);
  return renderLine({
    consoleUrl,
    sha256,
    pinned: input.corePin !== undefined,
    ...(bundle === undefined ? {} : { bundle }),
    installerArgs: `uninstall --installation-id ${dqWord(installationId)}${force}`,
    // Nothing to read: after the environment's lines the uninstaller's stdin ends, never the
    // rest of a piped script.
    run: `{ ${ENV_LINES}; } | "$@"`,
  });
}

// SEC-07, on the operator's side: one `NAME=value` line per PASSED_NAMES variable that is in the
// environment (`env` lists exported variables only, as a child would see them), then an empty
// line. `env` prints a value holding a line break over several lines, so each line of an
// allowed name is passed only if it is that variable's whole value (`printenv`, started for
// the allowed names present alone: issue #13): a value holding a line break would break the
// framing and is not passed (no locale, terminal or proxy value holds one), and a later line of
// another value cannot pose as an allowed variable. `LC_*` lets through names the far side does
// not take (FAR_SIDE's list is exact). printf and echo are builtins of /bin/sh, so no value (a
// proxy password) is ever a process argument, nor in sudo's log. A carriage return (a CRLF
// /etc/environment ends every value with one) breaks no framing and is passed: the installer
// refuses it in a proxy variable with one line naming the variable and the CRLF file (issue #27
// finding 4), where dropping it would send the install direct unsaid. Short, for the line's
// length (issue #42: an interactive dash reads at most 4095 bytes of a line from a terminal).
export const ENV_LINES =
  `env | while IFS= read -r l; do n=\${l%%=*}; case $n in ${OPERATOR_NAMES}) ` +
  'v=$(printenv "$n") && [ "$v" = "${l#*=}" ] && { printf %s "$l"; echo; };; esac; done; echo';

// SEC-07, on the far side of sudo: the program sudo executes is `env -i`, so nothing of sudo's,
// PAM's or the operator's environment passes (a policy with !env_reset or env_keep, pam_env);
// this script starts with PATH=SAFE_PATH only. It reads ENV_LINES' lines from stdin (`read` takes
// one byte at a time from a pipe, so the token after them stays unread), exports those whose
// name is allowed (`export "$l"` assigns; the value is never parsed as shell text), sets HOME to
// the passwd entry of the account it runs as (root's, not the operator's), and becomes the
// installer. dash exports PWD on its own: unset, so the installer sees exactly the allowlist.
export const FAR_SIDE =
  `unset PWD; while IFS= read -r l && [ -n "$l" ]; do case \${l%%=*} in ${PASSED_NAMES.join('|')}) export "$l";; esac; done; ` +
  'h=$(getent passwd "$(id -u)") && h=${h#*:*:*:*:*:} && export HOME="${h%%:*}"; exec "$@"';

interface LineParts {
  consoleUrl: string; // validated
  sha256: string; // validated
  /** Core's key is pinned (TRUST-01): the installer download does not ask the host's store. */
  pinned: boolean;
  /** OFFLINE-01: the installer is taken out of this bundle, not downloaded. */
  bundle?: string;
  installerArgs: string; // already quoted
  run: string;
}

// One statement per element; joined with '; ' into the script, which the line hands to /bin/sh
// (issue #42): whatever the operator's shell, the script runs in the same POSIX sh, with none of
// that shell's options (zsh's no_clobber or ksh_arrays, a ksh's close-on-exec descriptors).
// docs/one-line-command.md has the same statements one per line with their reasons.
function renderLine(parts: LineParts): string {
  return ` echo ${lineWord(renderScript(parts))} | /bin/sh`;
}

/** The script a rendered line hands to /bin/sh (for the tests and the docs: shellcheck reads
 *  it), as the operator's shell unquotes the line's one word. */
export function scriptOfLine(line: string): string {
  const word = /^ echo '(.*)' \| \/bin\/sh$/.exec(line)?.[1];
  if (word === undefined) throw new Error('not a line of this renderer');
  return word.replaceAll("'\\''", "'");
}

function renderScript(parts: LineParts): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const fail = (text: string, status: number): string => `{ ${say(text)}; exit ${status}; }`;
  const M = LINE_MESSAGES;
  const E = LINE_EXIT;
  const statements = [
    // BOOT-01: a known shell state (no xtrace that would print the token, no noclobber, no
    // errexit: every failure is handled below), and private files from here on.
    'set +Ceux',
    'umask 077',
    // BOOT-02: Linux x86-64 and the tools, before anything is created or downloaded.
    'a="$(uname -s) $(uname -m)"',
    `case $a in "Linux x86_64") ;; *) ${say(M.unsupportedHost)}; exit ${E.unsupportedHost};; esac`,
    'r=$(id -u)',
    `for t in ${toolsFor(parts).join(' ')} sudo; do [ "$t$r" = sudo0 ] || command -v "$t" >/dev/null 2>&1 || ${fail(M.missingTool, E.unsupportedHost)}; done`,
    // BOOT-03: the private directory, the names, and the lock.
    `s=${dqWord(parts.sha256)}`,
    // FLEET (issue #15): a service or cloud-init's runcmd runs the line without HOME; the
    // account's home then comes from the user database, as the installer's own HOME does.
    'w=${HOME:-}',
    '[ -n "$w" ] || { w=$(getent passwd "$r") && w=${w#*:*:*:*:*:} && w=${w%%:*}; }',
    `[ -n "$w" ] || ${fail(M.noHome, E.cannotWrite)}`,
    `d="$w/${BOOTSTRAP_DIR}"`,
    'x="$d/$s"',
    'p="$x.gz.part"',
    `{ mkdir -p "$d" && chmod 0700 "$d"; } || ${fail(M.cannotCreate, E.cannotWrite)}`,
    // The lock is descriptor 9 of this block alone (issue #42: a block's redirection, not
    // `exec`, is what every shell hands to flock), held while the installer is checked or
    // fetched and let go before it runs. The block's `||` is the lock file not opened: every
    // failure inside ends the script itself.
    `{ ${lockStatement()}; ${verifyStatement(parts)}; :; } 9>"$d/lock" || ${fail(M.lockOpen, E.cannotWrite)}`,
    // SEC-07, BOOT-04: `env -i` starts the installer (through FAR_SIDE) with a fixed PATH and
    // nothing else; --no-color for NO_COLOR; sudo unless root, with no variable preserved:
    // the allowed ones travel on stdin, in the run statement.
    `set -- env -i ${dqWord(`PATH=${SAFE_PATH}`)} /bin/sh -c ${shQuote(FAR_SIDE)} oac-node "$x" ${parts.installerArgs}`,
    '[ -z "${NO_COLOR:-}" ] || set -- "$@" --no-color',
    // --sudo: the installer's hints then say sudo (in a root shell they do not, guide l.101).
    '[ "$r" = 0 ] || set -- sudo -- "$@" --sudo',
    parts.run,
  ];
  return statements.join('; ');
}

/** BOOT-03, SEC-05: flock on descriptor 9; another command holding it is waited for (1 is
 *  flock's "held" and "timed out"); any other status is a lock that does not work, said so. */
function lockStatement(): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const M = LINE_MESSAGES;
  const E = LINE_EXIT;
  return [
    'flock -n 9; e=$?',
    `[ "$e" = 1 ] && { ${say(M.waiting)}; flock -w ${LOCK_WAIT_SECONDS} 9; e=$?; }`,
    `[ "$e" = 1 ] && { ${say(M.lockTimeout)}; exit ${E.downloadFailed}; }`,
    `[ "$e" = 0 ] || { ${say(M.lockFailed)}; exit ${E.cannotWrite}; }`,
  ].join('; ');
}

/** The SHA-256 of `file` into "$v" (its hex first, as sha256sum prints it). OpenSSL where the
 *  host has it: about 2.5x faster than coreutils' sha256sum on the 84 MiB installer in issue
 *  #13's measure, about 5x on the 89 MB one in issue #41's (0.07 against 0.37 s, from the page
 *  cache); the same SHA-256, and `-r` prints it first as sha256sum does. Any other answer of
 *  OpenSSL's (missing, a failure, another format, another sum) is asked of sha256sum again,
 *  whose answer decides. */
export function sha256Into(file: string): string {
  return `{ { v=$(openssl dgst -sha256 -r <${file}) && [ "\${v%% *}" = "$s" ]; } 2>/dev/null || v=$(sha256sum <${file}); }`;
}

// BOOT-03: the kept installer runs only if its content still has the name's checksum; one that
// does not is removed and downloaded again (it was damaged or replaced after it was kept). `2>`
// before `<`: a missing file is not an error worth a line.
//
// Issue #41: that hash is about 75 ms of every rerun. A kept installer that a run hashed and
// found right, and that has not changed since, is not hashed again: the run that hashed it keeps
// its stamp in "$x.ok" (ctime in whole seconds first, then device, inode, size and ctime in
// nanoseconds, as git's index keeps one), and a later run that finds the same stamp takes the
// content as checked. Any write to the file, or a rename over it, moves its ctime, which only
// the kernel sets. Trusted only where it cannot have been forged: the directory and the stamp
// are the pasting account's own (`-O`), as the kept installer is (whoever else could write
// there could swap the installer between any check and its start anyway); and a file changed
// less than two seconds before the check is not stamped (a write in the same clock tick could
// leave the ctime as it was; git calls such stamps racy). See docs/one-line-command.md.
function verifyStatement(parts: LineParts): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const M = LINE_MESSAGES;
  const kept = parts.bundle === undefined ? M.keptMismatch : M.keptMismatchBundle;
  const fetch =
    parts.bundle === undefined
      ? download(parts.consoleUrl, parts.pinned)
      : fromBundle(parts.bundle);
  // The file is opened once, as descriptor 8, and what is hashed is what is stamped: the stamp is
  // stat's answer for that descriptor (/dev/fd/8), never for the path again, which a swapped
  // directory could point elsewhere between the two (a stamp of a file never hashed).
  const hash = `{ ${sha256Into('/dev/fd/8')}; k=$(TZ=UTC0 stat -L -c "%Z %d %i %s %z" /dev/fd/8); } 2>/dev/null 8<"$x"`;
  // Stamped only after a hash that matched, of a file that settled (see above), and only where a
  // later run would read it: the directory the account's own; any earlier stamp removed first.
  const stamp =
    '[ "${v%% *}" = "$s" ] && [ -O "$d" ] && t=$(($(date +%s) - 2)) && [ "${k%% *}" -le "$t" ] 2>/dev/null && { rm -f "$x.ok"; echo "$s $k" >"$x.ok"; } 2>/dev/null';
  return [
    'v=; o=; k=$(TZ=UTC0 stat -L -c "%Z %d %i %s %z" -- "$x" 2>/dev/null)',
    '[ -O "$d" ] && [ -O "$x" ] && [ -O "$x.ok" ] && read -r o 2>/dev/null <"$x.ok"',
    `if [ -n "$k" ] && [ "$o" = "$s $k" ]; then v=$s; else ${hash}; ${stamp}; fi`,
    `[ "\${v%% *}" = "$s" ] || { [ -e "$x" ] && ${say(kept)}; rm -f "$x" "$x.ok"; ${fetch}; }`,
  ].join('; ');
}

/** BOOT-02: a bundle's line needs tar where the others need curl. */
function toolsFor(parts: LineParts): string[] {
  if (parts.bundle === undefined) return [...REQUIRED_TOOLS];
  return REQUIRED_TOOLS.map((t) => (t === 'curl' ? 'tar' : t));
}

// OFFLINE-01: the installer out of the bundle on the host (`oac-node.gz`, src/bundle/bundle.ts),
// then the same unpacking and checksum as a download: the bundle is trusted for nothing.
function fromBundle(bundle: string): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const M = LINE_MESSAGES;
  return [
    `b=${dqWord(bundle)}`,
    // Missing, or not readable by the pasting account (a bundle under a 0700 /root looks missing
    // to anyone else): one message for both.
    `[ -r "$b" ] || { ${say(M.bundleNotReadable)}; exit ${LINE_EXIT.bundleUnreadable}; }`,
    say(M.fromBundle),
    `tar -xOf "$b" oac-node.gz >"$p" 2>/dev/null || { rm -f "$p"; ${say(M.bundleUnreadable)}; exit ${LINE_EXIT.bundleUnreadable}; }`,
    unpackAndVerify(M.bundleMismatch),
  ].join('; ');
}

// BOOT-03, BOOT-06: download oac-node.gz (three tries), unpack it, and keep it as "$x" only if
// the unpacked executable has the command's checksum. Runs with the lock held.
function download(consoleUrl: string, pinned: boolean): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const M = LINE_MESSAGES;
  const E = LINE_EXIT;
  const installerUrl = `${consoleUrl}/node-install/oac-node.gz`;
  // SEC-01: an https console allows https only, redirects included; plain http only happens for
  // a loopback console (tests, the demo), which may still redirect to https. A loopback console
  // is reached directly, never through a proxy (as DL-04 says for the installer's downloads).
  const protocols = installerUrl.startsWith('https:') ? '"=https"' : '"=http,https"';
  const direct = isLoopbackHost(new URL(installerUrl).hostname) ? ' --noproxy "*"' : '';
  // TRUST-01: behind a private CA the host's store cannot check the console, and curl can pin
  // only a server's own key, not a CA's. This request carries no secret, and what it fetches runs
  // only once its SHA-256 is the command's (below): the checksum, not TLS, vouches for it. The
  // installer checks the pin before the token or any credential leaves it. Anyone on the path
  // can then answer, so the answer is capped (the installer is under 100 MiB).
  const insecure = pinned ? ` --insecure --max-filesize ${PINNED_DOWNLOAD_MAX_BYTES}` : '';
  const curl = [
    `curl -q -sS -L${direct}${insecure}`,
    `--proto ${protocols}`,
    // DL-03's floor for a stalled transfer: less than 64 KiB in a minute ends this try.
    '--connect-timeout 30 --speed-limit 1092 --speed-time 60',
    `-o "$p" -w "%{http_code}"`,
    dqWord(installerUrl),
  ].join(' ');
  return [
    say(M.downloading),
    'n=0',
    `while :; do n=$((n+1)); rm -f "$p"; h=$(${curl}); e=$?; [ "$e$h" = 0200 ] && break; ` +
      `case $e:$h in 0:408|0:429|0:5??|[1-9]*) ;; *) rm -f "$p"; ${say(M.consoleRefused)}; exit ${E.consoleRefused};; esac; ` +
      `[ "$n" -lt ${DOWNLOAD_TRIES} ] || { rm -f "$p"; ${say(M.downloadFailed)}; exit ${E.downloadFailed}; }; ` +
      'sleep "$n"; done',
    unpackAndVerify(M.checksumMismatch),
  ].join('; ');
}

/** The installer from "$p" to "$x", only if it has the command's checksum (`refusal` if not). */
function unpackAndVerify(refusal: string): string {
  const say = (text: string): string => `echo "${text}" >&2`;
  const M = LINE_MESSAGES;
  const E = LINE_EXIT;
  const mismatch = `${say(refusal)}; exit ${E.checksumMismatch}`;
  return [
    // A download that gzip cannot unpack is not the installer (a proxy's error page served
    // with 200, a damaged file): the checksum message. Only a sound gzip that cannot be
    // written is the directory's fault.
    `{ gzip -d <"$p" 2>/dev/null >"$x.part" && chmod 0700 "$x.part"; } || { rm -f "$x.part"; gzip -t <"$p" 2>/dev/null; e=$?; rm -f "$p"; ` +
      `case $e in 0) ${say(M.cannotUnpack)}; exit ${E.cannotWrite};; esac; ${mismatch}; }`,
    'rm -f "$p"',
    sha256Into('"$x.part"'),
    `[ "\${v%% *}" = "$s" ] || { rm -f "$x.part"; ${mismatch}; }`,
    `mv -f "$x.part" "$x" || { rm -f "$x.part"; ${say(M.cannotUnpack)}; exit ${E.cannotWrite}; }`,
  ].join('; ');
}
