// The one-line install and uninstall commands (installer/one-liner.ts) as text: their shape
// (` echo '<script>' | /bin/sh`), what the script embeds and refuses, the quoting of hostile
// values proven by real shells, every shell's parser on the line (issue #42), and shellcheck on
// the script. test/host/one-liner.test.ts runs the same lines for real.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  ENV_LINES,
  FAR_SIDE,
  LINE_EXIT,
  LINE_MESSAGES,
  LOCALE_NAMES,
  PASSED_NAMES,
  SAFE_PATH,
  renderInstallCommand,
  renderUninstallCommand,
  scriptOfLine,
  shQuote,
  type InstallCommandInput,
} from '../../installer/one-liner.ts';
import { UsageError } from '../../src/errors.ts';

const SHA = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const TOKEN = 'oact_Zm9vYmFyYmF6cXV4LXRva2VuLTEyMzQ1Njc4OQ';
const INPUT: InstallCommandInput = {
  consoleUrl: 'https://core.example.com',
  coreUrl: 'https://core.example.com',
  installationId: '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f',
  installerSha256: SHA,
  token: TOKEN,
};
/** The download's check (BOOT-06): OpenSSL where the host has it, sha256sum for any other answer. */
const PART_SHA256 =
  '{ { v=$(openssl dgst -sha256 -r <"$x.part") && [ "${v%% *}" = "$s" ]; } 2>/dev/null || v=$(sha256sum <"$x.part"); }';
const PIN = `sha256:${'ab'.repeat(32)}`;
const BUNDLE = '/root/oac-node-0.1.0.bundle';
const MANIFEST_SHA = 'ab'.repeat(32);
/** The lines as Web prints them. */
const LINES = {
  install: renderInstallCommand(INPUT),
  uninstall: renderUninstallCommand({ ...INPUT, force: false }),
  uninstallForce: renderUninstallCommand({ ...INPUT, force: true }),
  loopback: renderInstallCommand({
    ...INPUT,
    consoleUrl: 'http://127.0.0.1:8080',
    coreUrl: 'http://127.0.0.1:8080',
  }),
  pinned: renderInstallCommand({ ...INPUT, corePin: PIN }),
  uninstallPinned: renderUninstallCommand({ ...INPUT, corePin: PIN }),
  fromBundle: renderInstallCommand({ ...INPUT, bundle: BUNDLE, manifestSha256: MANIFEST_SHA }),
};
/** Their scripts, as /bin/sh gets them. */
const ALL = Object.fromEntries(
  Object.entries(LINES).map(([name, line]) => [name, scriptOfLine(line)]),
) as Record<keyof typeof LINES, string>;
const { install, uninstall, uninstallForce, loopback, pinned, uninstallPinned, fromBundle } = ALL;

function occurrences(text: string, what: string): number {
  return text.split(what).length - 1;
}

function run(command: string, args: string[], input?: string) {
  return spawnSync(command, args, { input, encoding: 'utf8' });
}

/** As run, with standard input a file: fish 3.6 takes the socket Node gives a child for
 *  `input` for a directory ("Unable to read input file"); a terminal or a file it reads. */
function runFromFile(command: string, args: string[], input: string) {
  const dir = mkdtempSync(join(tmpdir(), 'oac-paste-'));
  const file = join(dir, 'line');
  writeFileSync(file, input);
  const fd = openSync(file, 'r');
  try {
    return spawnSync(command, args, { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('BOOT-01 one line, leading space, one script for /bin/sh under umask 077', () => {
  for (const [name, line] of Object.entries(LINES)) {
    test(`BOOT-01 ${name}: one line that starts with a space and hands one quoted script to /bin/sh`, () => {
      assert.doesNotMatch(line, /[\n\r]/);
      assert.ok(line.startsWith(" echo 'set +Ceux; umask 077; "), 'a space, then the echo');
      assert.ok(line.endsWith("' | /bin/sh"));
      // Issue #42: the only backslashes are the operator's shell's own `'\''`, outside the
      // quotes; no `!` anywhere (history expansion: csh and tcsh even inside single quotes).
      assert.doesNotMatch(line.replaceAll("'\\''", ''), /[\\!]/);
      assert.equal(scriptOfLine(line), ALL[name as keyof typeof LINES]);
    });
  }

  test('BOOT-01 umask 077 comes before anything is created or downloaded', () => {
    const umask = install.indexOf('umask 077');
    for (const later of ['mkdir', 'curl ', 'gzip -d', '9>"$d/lock"']) {
      assert.ok(install.indexOf(later) > umask, later);
    }
  });

  test('BOOT-05 xtrace is switched off first, so a traced shell never prints the token', () => {
    assert.ok(install.startsWith('set +Ceux;'));
  });

  test('interactive shells: no `!` (history expansion) and no word starting with `=`', () => {
    for (const line of Object.values(ALL)) {
      assert.ok(!line.includes('!'));
      assert.doesNotMatch(line, /(^|\s)=\S/);
    }
  });
});

describe('BOOT-02 host checks before downloading', () => {
  test('BOOT-02 Linux x86-64 and the four tools are checked before mkdir and curl', () => {
    const uname = install.indexOf('a="$(uname -s) $(uname -m)"');
    const tools = install.indexOf('for t in curl sha256sum flock gzip sudo; do');
    assert.ok(uname > 0 && tools > uname);
    assert.ok(install.indexOf('mkdir -p') > tools);
    assert.ok(install.indexOf('curl -q') > tools);
    assert.ok(install.includes('case $a in "Linux x86_64") ;; *) '));
  });

  test('BOOT-02 each refusal is one line naming what is missing, and a non-zero status', () => {
    assert.ok(
      install.includes(
        `echo "oac-node: this command needs $t; install it and run the command again" >&2; exit ${LINE_EXIT.unsupportedHost};`,
      ),
    );
    assert.ok(install.includes(`echo "${LINE_MESSAGES.unsupportedHost}" >&2`));
    // sudo is needed only when the shell is not root.
    assert.ok(install.includes('[ "$t$r" = sudo0 ] || command -v "$t" >/dev/null 2>&1 ||'));
  });
});

describe('BOOT-03 private directory, lock, three tries, kept <sha256> files', () => {
  test('BOOT-03 ~/.oac/node-bootstrap is created and made 0700, then locked with flock', () => {
    assert.ok(install.includes('w=${HOME:-}; [ -n "$w" ] || { w=$(getent passwd "$r") && '));
    assert.ok(install.includes(`[ -n "$w" ] || { echo "${LINE_MESSAGES.noHome}" >&2; exit 73; }`));
    assert.ok(install.includes('d="$w/.oac/node-bootstrap"'));
    assert.ok(install.includes('{ mkdir -p "$d" && chmod 0700 "$d"; } || { echo "'));
    // Issue #42: the lock is a block's descriptor (every shell hands it to flock), and a lock
    // file that cannot be opened, a lock that does not work and a wait that timed out are
    // three messages, each true.
    assert.ok(install.includes('{ flock -n 9; e=$?; [ "$e" = 1 ] && { echo "'));
    assert.ok(install.includes(`"${LINE_MESSAGES.lockFailed}" >&2; exit 73;`));
    assert.ok(install.includes(`"${LINE_MESSAGES.lockTimeout}" >&2; exit 75;`));
    assert.ok(install.includes(`:; } 9>"$d/lock" || { echo "${LINE_MESSAGES.lockOpen}" >&2;`));
    assert.ok(install.indexOf('flock -n 9') < install.indexOf('curl -q'));
    assert.ok(
      install.indexOf('9>"$d/lock"') > install.indexOf('mv -f'),
      'lock held until unpacked',
    );
  });

  test('BOOT-03 the runnable installer is named by its own checksum and verified before every run, a kept one too', () => {
    assert.ok(install.includes(`s="${SHA}"`));
    assert.ok(install.includes('x="$d/$s"; p="$x.gz.part"'));
    // The kept file is hashed under the lock; only a match skips the download.
    // OpenSSL where the host has it (issue #13: faster), else sha256sum: the same SHA-256, of
    // one descriptor opened once (8), whose stat is the stamp.
    const kept = install.indexOf(
      '{ { { v=$(openssl dgst -sha256 -r </dev/fd/8) && [ "${v%% *}" = "$s" ]; } 2>/dev/null || v=$(sha256sum </dev/fd/8); }; k=$(TZ=UTC0 stat -L -c "%Z %d %i %s %z" /dev/fd/8); } 2>/dev/null 8<"$x"; ',
    );
    assert.ok(kept > install.indexOf('flock -n 9'));
    assert.ok(kept < install.indexOf('curl -q'));
    assert.ok(
      install.includes(
        `[ -e "$x" ] && echo "${LINE_MESSAGES.keptMismatch}" >&2; rm -f "$x" "$x.ok"; `,
      ),
    );
    // Issue #41: the hash is skipped only for the very stamp a matching hash wrote, read only
    // from the pasting account's own directory, installer and stamp file.
    const stamped = install.indexOf(
      'v=; o=; k=$(TZ=UTC0 stat -L -c "%Z %d %i %s %z" -- "$x" 2>/dev/null); [ -O "$d" ] && [ -O "$x" ] && [ -O "$x.ok" ] && read -r o 2>/dev/null <"$x.ok"; if [ -n "$k" ] && [ "$o" = "$s $k" ]; then v=$s; else { { { v=$(openssl',
    );
    assert.ok(stamped > install.indexOf('flock -n 9') && stamped < kept);
    assert.ok(
      install.includes(
        '8<"$x"; [ "${v%% *}" = "$s" ] && [ -O "$d" ] && t=$(($(date +%s) - 2)) && [ "${k%% *}" -le "$t" ] 2>/dev/null && { rm -f "$x.ok"; echo "$s $k" >"$x.ok"; } 2>/dev/null; fi; [ "${v%% *}" = "$s" ] || { ',
      ),
      'a stamp only after a matching hash, of a file settled for two seconds, in a directory of its own',
    );
    // No reuse on the mere presence or mode of a file.
    assert.doesNotMatch(install, /\[ -[xfe] "\$x" \] \|\|/);
  });

  test('BOOT-03 at most three tries, each starting by clearing the unfinished download', () => {
    assert.ok(install.includes('while :; do n=$((n+1)); rm -f "$p"; h=$(curl '));
    assert.ok(install.includes(`[ "$n" -lt 3 ] || { rm -f "$p"; echo "`));
    assert.ok(install.includes('0:408|0:429|0:5??|[1-9]*) ;;'), 'temporary failures retry');
  });

  test('BOOT-03 curl ignores ~/.curlrc, follows redirects, and keeps to https for an https console', () => {
    assert.ok(install.includes('curl -q -sS -L --proto "=https" '));
    assert.ok(loopback.includes('curl -q -sS -L --noproxy "*" --proto "=http,https" '));
    assert.ok(install.includes('"https://core.example.com/node-install/oac-node.gz"'));
  });

  test('BOOT-06 the unpacked executable is verified before it takes the name; a mismatch says what to do', () => {
    const unpack = install.indexOf('gzip -d <"$p" 2>/dev/null >"$x.part"');
    // Issue #41: OpenSSL where the host has it, as for the kept installer; sha256sum decides
    // any other answer.
    const verify = install.indexOf(`${PART_SHA256}; [ "\${v%% *}" = "$s" ] || { rm -f "$x.part"; `);
    assert.ok(unpack > install.indexOf('curl -q'));
    assert.ok(verify > unpack);
    assert.ok(install.indexOf('mv -f "$x.part" "$x"') > verify);
    const mismatch = `echo "${LINE_MESSAGES.checksumMismatch}" >&2; exit ${LINE_EXIT.checksumMismatch};`;
    assert.ok(install.includes(mismatch));
    // A download gzip cannot read is not the installer either: the same message.
    assert.ok(install.includes('gzip -t <"$p" 2>/dev/null; e=$?; rm -f "$p"; case $e in 0) '));
  });
});

describe('BOOT-04 SEC-07 sudo unless root; env -i and an allowlist on its far side', () => {
  test('BOOT-04 sudo is added only when the shell is not root, and preserves no variable', () => {
    assert.ok(install.includes('r=$(id -u)'));
    assert.ok(install.includes('[ "$r" = 0 ] || set -- sudo -- "$@" --sudo; { '));
    for (const line of Object.values(ALL)) {
      assert.equal(occurrences(line, 'sudo --'), 1);
      // The allowed values travel on stdin: sudo is asked to keep none (no policy can refuse).
      assert.doesNotMatch(line, /--preserve-env|sudo (-\S+ )*-E\b/);
    }
  });

  test('SEC-07 env -i with a fixed PATH is what sudo executes; FAR_SIDE becomes the installer', () => {
    const program = `set -- env -i "PATH=${SAFE_PATH}" /bin/sh -c '`;
    for (const line of Object.values(ALL)) {
      assert.ok(line.includes(program));
      assert.ok(line.indexOf('set -- sudo -- "$@"') > line.indexOf(program), 'sudo wraps env -i');
      assert.ok(line.includes('\' oac-node "$x" '));
      assert.equal(occurrences(line, 'NODE_OPTIONS'), 0, 'no denylist: nothing else passes');
    }
    assert.equal(SAFE_PATH, '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });

  test('SEC-07 the allowlist: TERM, LANG and the LC_ names, NO_COLOR, the six proxy names', () => {
    assert.deepEqual(
      [...PASSED_NAMES],
      [
        'TERM',
        'LANG',
        ...LOCALE_NAMES.slice(1),
        'NO_COLOR',
        'http_proxy',
        'https_proxy',
        'no_proxy',
        'HTTP_PROXY',
        'HTTPS_PROXY',
        'NO_PROXY',
      ],
    );
    assert.ok(LOCALE_NAMES.every((n) => n === 'LANG' || n.startsWith('LC_')));
    assert.equal(LOCALE_NAMES.length, 14);
    for (const line of Object.values(ALL)) {
      // Only the allowed names present reach printenv (issue #13), each line checked against
      // the whole value (a line break in a value is not passed, nor a line posing as a name).
      assert.ok(
        line.includes(
          'env | while IFS= read -r l; do n=${l%%=*}; case $n in TERM|LANG|LC_*|NO_COLOR|http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY) v=$(printenv "$n") && [ "$v" = "${l#*=}" ] && ',
        ),
      );
      assert.ok(line.includes(`case \${l%%=*} in ${PASSED_NAMES.join('|')}) export`));
    }
  });
});

describe('SEC-07 the environment handoff, run by real shells', () => {
  // ENV_LINES in the operator's shell, piped with a token into `env -i … /bin/sh -c FAR_SIDE`,
  // which here becomes a reporter instead of the installer: its environment, then what is left
  // of stdin. The whole line does the same in test/host/one-liner.test.ts.
  // /proc/$$/environ: what the reporter was started with (a shell adds PWD to its own later).
  const REPORT = 'tr "\\000" "\\n" </proc/$$/environ; IFS= read -r t; echo "stdin=$t"';
  const operatorEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent-operator-home',
    TERM: 'xterm-256color',
    LANG: "C.UTF-8 $(touch CANARY) `touch CANARY` 'q' \\ *",
    LC_TIME: '',
    https_proxy: 'http://user:p%40ss@proxy.example:3128',
    NO_PROXY: 'localhost,.corp',
    LC_PAPER: 'line\nbreak',
    // A CRLF /etc/environment: passed verbatim, for the installer to refuse in a proxy
    // variable with a line naming it (issue #27 finding 4), not dropped unsaid.
    http_proxy: 'http://proxy.example:3128\r',
    LC_NAME: 'C\r',
    NODE_OPTIONS: '--require /nonexistent.js',
    NODE_TLS_REJECT_UNAUTHORIZED: '0',
    OPENSSL_CONF: '/tmp/evil.cnf',
    LD_PRELOAD: '/tmp/evil.so',
    FOO: 'bar',
  };

  for (const shell of ['dash', 'bash']) {
    test(`SEC-07 ${shell}: only the set allowed names pass, verbatim (a carriage return too), none holding a line break; the token stays on stdin`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'oac-env-'));
      try {
        const script =
          `{ ${ENV_LINES}; printf %s TOKEN-after-the-lines; echo; } | ` +
          `env -i 'PATH=${SAFE_PATH}' /bin/sh -c ${shQuote(FAR_SIDE)} oac-node /bin/sh -c ${shQuote(REPORT)}`;
        const r = spawnSync(shell, ['-c', script], {
          cwd: dir,
          env: operatorEnv,
          encoding: 'utf8',
        });
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout.split('\n').filter((l) => l !== '');
        assert.equal(lines.at(-1), 'stdin=TOKEN-after-the-lines');
        const passed = lines.slice(0, -1).sort();
        const home = spawnSync('getent', ['passwd', String(process.getuid?.() ?? 0)], {
          encoding: 'utf8',
        }).stdout.split(':')[5];
        assert.deepEqual(
          passed,
          [
            `HOME=${home}`,
            `LANG=${operatorEnv.LANG}`,
            'LC_TIME=',
            `NO_PROXY=${operatorEnv.NO_PROXY}`,
            `PATH=${SAFE_PATH}`,
            `TERM=${operatorEnv.TERM}`,
            `https_proxy=${operatorEnv.https_proxy}`,
            `http_proxy=${operatorEnv.http_proxy}`,
            `LC_NAME=${operatorEnv.LC_NAME}`,
          ].sort(),
        );
        assert.deepEqual(readdirSync(dir), [], 'no value ran as shell text');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('SEC-03 SEC-07 the values are printed by the printf builtin, never put in an argument', () => {
    assert.ok(
      ENV_LINES.includes(
        'v=$(printenv "$n") && [ "$v" = "${l#*=}" ] && { printf %s "$l"; echo; };; esac',
      ),
    );
    assert.doesNotMatch(ENV_LINES, /env -i|export|eval/);
    assert.doesNotMatch(FAR_SIDE, /eval/);
  });
});

describe('BOOT-05 the token on standard input only; NO_COLOR', () => {
  test('BOOT-05 the token appears once, as the argument of the printf builtin piped to the installer', () => {
    assert.equal(occurrences(install, TOKEN), 1);
    assert.ok(install.endsWith(`; echo; printf %s "${TOKEN}"; echo; } | "$@"`));
    // Never in an assignment, an export, an argument list or a file.
    assert.doesNotMatch(install, new RegExp(`=\\S*${TOKEN}`));
  });

  test('BOOT-05 the installer gets install --core-url URL --installation-id ID, no token', () => {
    assert.ok(
      install.includes(
        `"$x" install --core-url "https://core.example.com" --installation-id "${INPUT.installationId}";`,
      ),
    );
  });

  test('BOOT-05 NO_COLOR set and non-empty adds --no-color', () => {
    for (const line of Object.values(ALL)) {
      assert.ok(line.includes('[ -z "${NO_COLOR:-}" ] || set -- "$@" --no-color;'));
    }
  });
});

describe('BOOT-06 BOOT-07 what the lines embed; the uninstall line', () => {
  test('BOOT-06 the install line embeds the Core address, checksum, installation ID and token', () => {
    for (const value of [INPUT.coreUrl, SHA, INPUT.installationId, TOKEN]) {
      assert.ok(install.includes(`"${value}`), value);
    }
  });

  test('BOOT-07 the uninstall line has the same shape, no token, and --force only when asked', () => {
    const head = install.slice(0, install.indexOf(`' oac-node "$x" `));
    assert.ok(uninstall.startsWith(head), 'same checks, download, lock and env -i');
    assert.ok(!uninstall.includes(TOKEN) && !uninstall.includes('echo; printf %s "'));
    assert.ok(
      uninstall.includes(
        `' oac-node "$x" uninstall --installation-id "${INPUT.installationId}"; [`,
      ),
    );
    assert.ok(
      uninstallForce.includes(
        `"$x" uninstall --installation-id "${INPUT.installationId}" --force; [`,
      ),
    );
    assert.ok(!uninstall.includes('--force'));
    assert.ok(
      uninstall.endsWith(`; { ${ENV_LINES}; } | "$@"`),
      'stdin: the allowed lines, then its end',
    );
    assert.ok(uninstall.includes('[ "$r" = 0 ] || set -- sudo -- "$@"'));
  });
});

describe('SEC-01 SEC-04 every embedded value is validated first', () => {
  const refuses = (patch: Partial<InstallCommandInput>, pattern: RegExp): void => {
    assert.throws(
      () => renderInstallCommand({ ...INPUT, ...patch }),
      (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.equal(error.exitCode, 64);
        assert.match(error.message, pattern);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  };

  test('SEC-01 URLs: https, or http on loopback only; no credentials, query or fragment', () => {
    refuses({ coreUrl: 'http://core.example.com' }, /must use https/);
    refuses({ consoleUrl: 'http://10.0.0.1:8080' }, /must use https/);
    refuses({ coreUrl: 'ftp://core.example.com' }, /must use https/);
    refuses({ coreUrl: 'not a url' }, /not a usable URL/);
    refuses({ consoleUrl: 'https://user:pw@core.example.com' }, /not a usable URL/);
    refuses({ consoleUrl: 'https://core.example.com/?a=1' }, /query or a fragment/);
    refuses({ coreUrl: 'https://core.example.com/#x' }, /query or a fragment/);
    refuses({ coreUrl: 'https://core.example.com/api' }, /origin without a path/);
    refuses({ consoleUrl: "https://core.example.com/a'b" }, /does not embed/);
    refuses({ consoleUrl: 'https://core.example.com/$(id)' }, /does not embed/);
    refuses({ consoleUrl: 'https://core.example.com/a!b' }, /does not embed/);
    for (const ok of ['http://127.0.0.1:1', 'http://localhost:8080', 'http://[::1]:9']) {
      assert.ok(renderInstallCommand({ ...INPUT, consoleUrl: ok, coreUrl: ok }).includes(ok));
    }
    // A console under a path prefix keeps it; a trailing slash is dropped.
    const prefixed = renderInstallCommand({ ...INPUT, consoleUrl: 'https://c.example/console/' });
    assert.ok(prefixed.includes('"https://c.example/console/node-install/oac-node.gz"'));
  });

  test('SEC-04 installation ID: 1 to 64 of [A-Za-z0-9._-], starting with a letter or digit', () => {
    for (const bad of ['', 'a'.repeat(65), '-x', '.', '..', 'a b', "a'b", 'a/b', 'a\nb', 'é']) {
      refuses({ installationId: bad }, /installation ID/);
    }
    for (const ok of ['a', 'A.b_c-9', 'x'.repeat(64)]) {
      assert.ok(renderInstallCommand({ ...INPUT, installationId: ok }).includes(`"${ok}"`));
    }
  });

  test("SEC-04 the installer's SHA-256: 64 lowercase hex digits", () => {
    for (const bad of ['', SHA.toUpperCase(), SHA.slice(1), `${SHA}0`, `${SHA.slice(1)}g`]) {
      refuses({ installerSha256: bad }, /SHA-256/);
    }
  });

  test('SEC-03 SEC-04 token: 16 to 512 of [A-Za-z0-9._~-], and a refusal never repeats it', () => {
    const bad = [
      'short',
      'x'.repeat(513),
      'abcdefghijklmnop q',
      "abcdefghijklmnop'",
      'abcdefghijklmnop$(id)',
      'abcdefghijklmnop\n',
      'abcdefghijklmnop`id`',
    ];
    for (const token of bad) {
      assert.throws(
        () => renderInstallCommand({ ...INPUT, token }),
        (error: unknown) =>
          error instanceof UsageError &&
          /enrollment token/.test(error.message) &&
          !error.message.includes(token),
      );
    }
    for (const token of ['a'.repeat(16), 'A-._~z'.repeat(80), 'x'.repeat(512)]) {
      assert.ok(renderInstallCommand({ ...INPUT, token }).includes(`"${token}"`));
    }
  });

  test('SEC-04 the uninstall line validates the same way', () => {
    assert.throws(
      () => renderUninstallCommand({ ...INPUT, installationId: '$(id)' }),
      /installation ID/,
    );
    assert.throws(() => renderUninstallCommand({ ...INPUT, consoleUrl: 'http://x.example' }));
  });
});

describe('quoting: no value can leave its word, even without validation', () => {
  const hostile = [
    "'",
    "''",
    "'\\''",
    "it's",
    "a'b'c'",
    '$(touch CANARY)',
    '`touch CANARY`',
    '$HOME',
    '${HOME}',
    '"',
    '";touch CANARY;"',
    "'; touch CANARY; '",
    'a;b',
    'a && touch CANARY',
    'a | touch CANARY',
    'line\nbreak',
    '\n',
    '\\',
    '\\\\',
    "\\'",
    '*',
    '?[a]',
    '~',
    '!',
    '!!',
    '#comment',
    '\t tab and space ',
    '-n',
    '--',
    '',
    'ünïcødé',
    '>CANARY',
    '<(touch CANARY)',
  ];

  for (const shell of ['dash', 'bash']) {
    test(`SEC-04 ${shell} -c gives every hostile value back verbatim and runs none of it`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'oac-quote-'));
      try {
        for (const value of hostile) {
          const r = spawnSync(shell, ['-c', `printf '%s' ${shQuote(value)}`], {
            cwd: dir,
            encoding: 'utf8',
          });
          assert.equal(r.status, 0, JSON.stringify(value));
          assert.equal(r.stdout, value, JSON.stringify(value));
          // As one argument among others, too: the word ends where the quoting ends.
          const r2 = spawnSync(
            shell,
            ['-c', `for w in A ${shQuote(value)} B; do printf '[%s]' "$w"; done`],
            { cwd: dir, encoding: 'utf8' },
          );
          assert.equal(r2.stdout, `[A][${value}][B]`, JSON.stringify(value));
        }
        assert.deepEqual(readdirSync(dir), [], 'nothing ran');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('SEC-04 a NUL byte cannot be quoted and is refused', () => {
    assert.throws(() => shQuote('a\0b'), /NUL/);
  });

  test("SEC-04 a single quote becomes '\\''", () => {
    assert.equal(shQuote("it's"), "'it'\\''s'");
  });
});

/** Issue #42: the shells operators paste into, each with its parser-only switch, from Debian's
 *  packages (scripts/setup.sh). zsh twice: without its rc files, and with the interactive
 *  options that broke earlier lines (no_clobber, nounset, ksh_arrays). */
export const PASTE_SHELLS: ReadonlyArray<{ name: string; parse: string[] }> = [
  { name: 'bash', parse: ['bash', '-n'] },
  { name: 'dash', parse: ['dash', '-n'] },
  { name: 'zsh', parse: ['zsh', '-f', '-n'] },
  {
    name: 'zsh with options',
    parse: ['zsh', '-n', '-o', 'noclobber', '-o', 'nounset', '-o', 'ksharrays'],
  },
  { name: 'mksh', parse: ['mksh', '-n'] },
  { name: 'busybox ash', parse: ['busybox', 'sh', '-n'] },
  { name: 'fish', parse: ['fish', '--no-config', '--no-execute'] },
  { name: 'tcsh', parse: ['tcsh', '-f', '-n'] },
];

describe('issue #42 every shell parses the lines; shellcheck accepts their script', () => {
  for (const [name, script] of Object.entries(ALL)) {
    test(`BOOT-01 ${name}: shellcheck -s sh reports nothing on the script (SC2016 aside)`, () => {
      // SC2016 (info) is FAR_SIDE: a script for the far side of `env -i`, single-quoted on
      // purpose, its `$` for that shell to expand.
      const r = run('shellcheck', ['-s', 'sh', '-e', 'SC2016', '-'], `${script}\n`);
      assert.equal(r.error, undefined, 'shellcheck is installed (scripts/setup.sh)');
      assert.equal(r.stdout + r.stderr, '');
      assert.equal(r.status, 0);
    });
  }

  for (const shell of PASTE_SHELLS)
    test(`BOOT-08 ${shell.name} parses every line, and /bin/sh its script`, () => {
      for (const [name, line] of Object.entries(LINES)) {
        const [command = '', ...args] = shell.parse;
        const r = runFromFile(command, args, `${line}\n`);
        assert.equal(r.error, undefined, `${command} is installed (scripts/setup.sh)`);
        assert.equal(r.status, 0, `${shell.name}, ${name}: ${r.stderr}`);
        assert.equal(r.stderr, '', `${shell.name}, ${name}`);
        const sh = run('/bin/sh', ['-n'], `${ALL[name as keyof typeof LINES]}\n`);
        assert.equal(sh.status, 0, sh.stderr);
      }
    });

  for (const shell of PASTE_SHELLS)
    test(`BOOT-08 SEC-03 ${shell.name}: the line hands /bin/sh exactly the script, through the echo builtin`, () => {
      // The line without its `| /bin/sh`: what the operator's shell makes of the quoted word.
      const [command = '', ...args] = shell.parse.filter(
        (a) => !['-n', '--no-execute'].includes(a),
      );
      for (const [name, line] of Object.entries(LINES)) {
        const echoed = runFromFile(command, args, `${line.slice(0, -' | /bin/sh'.length)}\n`);
        assert.equal(echoed.status, 0, `${shell.name}, ${name}: ${echoed.stderr}`);
        assert.ok(
          echoed.stdout === `${ALL[name as keyof typeof LINES]}\n`,
          `${shell.name}, ${name}`,
        );
        const type = runFromFile(command, args, `${command === 'tcsh' ? 'which' : 'type'} echo\n`);
        assert.match(type.stdout, /builtin|built-in/, `${shell.name}: echo is a builtin`);
      }
    });
});

test('docs/one-line-command.md shows the exact line rendered for its example values', () => {
  const doc = readFileSync(new URL('../../docs/one-line-command.md', import.meta.url), 'utf8');
  const example = renderInstallCommand({
    consoleUrl: 'https://core.example.com',
    coreUrl: 'https://core.example.com',
    installationId: '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f',
    installerSha256: '84567e3427917bc6bcb4e110b0ec6c7120f51bfe7e05abcc97c7b837e79ff5c0',
    token: 'EXAMPLE-enrollment-token-0123456789',
  });
  assert.ok(doc.includes(`\n${example}\n`), 'the install example is the rendered line');
  const uninstallExample = renderUninstallCommand({
    consoleUrl: 'https://core.example.com',
    installationId: '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f',
    installerSha256: '84567e3427917bc6bcb4e110b0ec6c7120f51bfe7e05abcc97c7b837e79ff5c0',
    force: true,
  });
  assert.ok(doc.includes(`\n${uninstallExample}\n`), 'the uninstall example is the rendered line');
});

describe("TRUST-01 the pin of Core's key in the line", () => {
  test('TRUST-01 the install line passes the pin to the installer as an argument (it is no secret)', () => {
    assert.equal(occurrences(pinned, `--core-pin "${PIN}"`), 1);
    assert.ok(
      pinned.indexOf('--core-pin') > pinned.indexOf('install --core-url'),
      'an argument of the installer',
    );
    assert.ok(!install.includes('--core-pin') && !uninstallPinned.includes('--core-pin'));
  });

  test('TRUST-01 only a pinned line skips the host store for the installer download, which the checksum vouches for', () => {
    for (const line of [pinned, uninstallPinned]) {
      assert.equal(
        occurrences(line, 'curl -q -sS -L --insecure --max-filesize 536870912 --proto'),
        1,
      );
      // The checksum check of the download is still there, after curl.
      assert.ok(line.indexOf(PART_SHA256) > line.indexOf('--insecure'));
    }
    for (const line of [install, uninstall, uninstallForce, loopback])
      assert.ok(!line.includes('--insecure') && !line.includes(' -k '));
  });

  test('TRUST-01 a malformed pin, or a pin for a plain-http Core, is refused in one line', () => {
    for (const bad of [
      'sha256:AB',
      `sha1:${'ab'.repeat(32)}`,
      `${PIN}x`,
      `sha256:${'AB'.repeat(32)}`,
    ])
      assert.throws(
        () => renderInstallCommand({ ...INPUT, corePin: bad }),
        (error: unknown) => error instanceof UsageError && !error.message.includes('\n'),
      );
    assert.throws(
      () =>
        renderInstallCommand({
          ...INPUT,
          consoleUrl: 'http://127.0.0.1:8080',
          coreUrl: 'http://127.0.0.1:8080',
          corePin: PIN,
        }),
      /https Core URL/,
    );
  });
});

describe('OFFLINE-01 the line that takes everything from a bundle on the host', () => {
  test('OFFLINE-01 the installer comes out of the bundle with tar, is checked as a download is, and gets --bundle', () => {
    assert.ok(fromBundle.includes(`b="${BUNDLE}"`));
    assert.ok(fromBundle.includes('tar -xOf "$b" oac-node.gz >"$p"'));
    assert.ok(!fromBundle.includes('curl '), 'nothing is downloaded');
    assert.ok(fromBundle.includes('for t in tar sha256sum flock gzip sudo; do'));
    assert.ok(fromBundle.includes(PART_SHA256), 'the same checksum as a download');
    assert.ok(
      fromBundle.includes(
        `echo "${LINE_MESSAGES.bundleMismatch}" >&2; exit ${LINE_EXIT.checksumMismatch}`,
      ),
    );
    assert.ok(fromBundle.includes(`exit ${LINE_EXIT.bundleUnreadable}`));
    assert.equal(
      occurrences(fromBundle, `--bundle "${BUNDLE}" --manifest-sha256 "${MANIFEST_SHA}"`),
      1,
    );
    // Not readable by the pasting account (a root-only file, the line run with sudo): said so.
    assert.ok(
      fromBundle.includes(
        `[ -r "$b" ] || { echo "${LINE_MESSAGES.bundleNotReadable}" >&2; exit ${LINE_EXIT.bundleUnreadable}; }`,
      ),
    );
    assert.ok(fromBundle.includes(LINE_MESSAGES.keptMismatchBundle));
  });

  test('OFFLINE-01 a relative path, .. or a character the line does not carry is refused', () => {
    for (const bad of [
      'oac.bundle',
      '/root/../etc/shadow',
      '/root/a b',
      "/root/it's",
      '/root/$x',
      '/root/./x',
    ])
      assert.throws(
        () => renderInstallCommand({ ...INPUT, bundle: bad, manifestSha256: MANIFEST_SHA }),
        UsageError,
        bad,
      );
    // A bundle without the SHA-256 of its manifest (the command's word for it) is refused.
    assert.throws(
      () => renderInstallCommand({ ...INPUT, bundle: BUNDLE }),
      /SHA-256 of its manifest/,
    );
  });
});
