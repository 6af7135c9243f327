// DL-04 (issue #26 item 2): the proxy rules agree with the pasted line's curl on which hosts go
// direct. The line downloads the installer with curl under the same variables, then the
// installer routes by src/net/proxy-env.ts: a host one of them sends direct and the other
// through the proxy is a download that works and an install that does not.
//
// How curl's choice is seen without traffic leaving this machine: https_proxy names a listener
// on loopback, and `--connect-to ::127.0.0.1:<port>` sends every direct connection to a second
// one; `-w %{remote_port}` says per URL which of the two curl reached. Both answer 403 at once.
// One curl per generated environment, several URLs each: a few hundred routes in a few seconds.
//
// Only where the guide (docs/downloads.md) promises curl's behaviour: names, `.suffix` and
// trailing dots, IPv4 and IPv6 addresses, IPv4 CIDR blocks, case, blanks around commas. Left out,
// as the guide documents them differently from curl 7.88 (Debian 12's): loopback is always
// direct (curl proxies it), an empty lowercase variable hides the uppercase one (curl reads an
// empty one as unset), `*.example.com` and `host:port` entries (curl 7.88 matches neither),
// `*` inside a list (curl: only the whole value), an entry that is no name or address
// (refused here, skipped by curl), and IPv6 blocks (curl 7.88 keeps an IPv6 host without its
// brackets and so compares it as a name: only the exact address, as written, matches).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { parseProxyEnv, resolveRoute } from '../../src/net/proxy-env.ts';
import { checkAsync } from './fuzz-support.ts';

// Generated environments, each with up to eight URLs: several hundred routes compared.
const CASES = 100;

function listener(): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () =>
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let proxy: Server;
let direct: Server;
const portOf = (s: Server) => (s.address() as AddressInfo).port;
before(async () => {
  [proxy, direct] = await Promise.all([listener(), listener()]);
});
after(() => {
  proxy.close();
  direct.close();
});

/** The port curl connected to for each URL, in order (loopback only, see above). */
function curlPorts(env: Record<string, string>, urls: string[]): Promise<number[]> {
  const args = ['-q', '-sS', '--max-time', '5', '--connect-to', `::127.0.0.1:${portOf(direct)}`];
  args.push('-o', '/dev/null', '-w', '%{remote_port}\\n', ...urls);
  return new Promise((resolve, reject) =>
    execFile(
      'curl',
      args,
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } },
      (error, stdout) => {
        const ports = stdout.trim().split('\n').map(Number);
        if (ports.length === urls.length) resolve(ports);
        else reject(error ?? new Error(`curl printed ${JSON.stringify(stdout)}`));
      },
    ),
  );
}

// Few names, so entries and hosts meet often: an entry, its sub-domains and its neighbours.
const label = fc.constantFrom('example', 'corp', 'a', 'b', 'nonexample', 'x1', 'release');
const name = fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.'));
const v4 = fc
  .tuple(fc.constantFrom(10, 172, 192, 8), fc.constantFrom(0, 1, 16, 168), fc.nat(3), fc.nat(3))
  .map((o) => o.join('.'));
const v6 = fc.constantFrom('fd00::1', 'fd00::2', 'fd00:0:0:1::1', '2001:db8::1', '2001:db8:1::5');
const mixedCase = (s: string, upper: boolean[]) =>
  [...s].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');

const entry = fc.oneof(
  name,
  name.map((n) => `.${n}`),
  name.map((n) => `${n}.`),
  fc
    .tuple(name, fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }))
    .map(([n, u]) => mixedCase(n, u)),
  v4,
  // The last octets of an address, which read as a name ending like the address.
  v4.map((a) => a.split('.').slice(2).join('.')),
  fc.tuple(v4, fc.constantFrom(8, 12, 16, 24, 32)).map(([a, b]) => `${a}/${b}`),
  v6,
);
const list = fc
  .tuple(fc.array(entry, { minLength: 1, maxLength: 4 }), fc.constantFrom(',', ', ', ' ,'))
  .map(([entries, sep]) => entries.join(sep));
const host = fc.oneof(
  name,
  name.map((n) => `${n}.`),
  v4,
  v6.map((a) => `[${a}]`),
);

test('DL-04 the proxy rules send direct exactly the hosts the line’s curl sends direct', async () => {
  await checkAsync(
    fc.asyncProperty(
      list,
      fc.constantFrom('no_proxy', 'NO_PROXY'),
      fc.uniqueArray(host, { minLength: 1, maxLength: 8 }),
      async (noProxy, variable, hosts) => {
        const env = { https_proxy: `http://127.0.0.1:${portOf(proxy)}`, [variable]: noProxy };
        const urls = hosts.map((h) => `https://${h}/`);
        const ports = await curlPorts(env, urls);
        const settings = parseProxyEnv(env);
        urls.forEach((url, i) => {
          const ours = resolveRoute(settings, new URL(url)).kind;
          const curl = ports[i] === portOf(direct) ? 'direct' : 'proxy';
          assert.equal(ours, curl, `${url} with ${variable}=${noProxy}`);
        });
      },
    ),
    CASES,
  );
});
