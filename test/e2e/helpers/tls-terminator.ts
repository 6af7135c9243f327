// Run inside an e2e host's network namespace (nsenter --net): ends TLS for test names such as
// core.test with a certificate the host was told to trust, and passes each connection's bytes to
// a plain port, WebSocket upgrades included (a byte pipe, not an HTTP proxy). It stands for the
// reverse proxy in front of a real Core and its release server.
//   node --import tsx tls-terminator.ts CERT KEY LISTEN_HOST:PORT=TARGET_PORT...
// Prints one line, `ready`, once every listener is up; stops on SIGTERM.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createServer } from 'node:tls';

const [certPath, keyPath, ...routes] = process.argv.slice(2);
if (certPath === undefined || keyPath === undefined || routes.length === 0) {
  process.stderr.write('usage: tls-terminator.ts CERT KEY HOST:PORT=TARGET_PORT...\n');
  process.exit(2);
}
const cert = readFileSync(certPath);
const key = readFileSync(keyPath);

const servers = routes.map((route) => {
  const match = /^([\d.]+):(\d+)=(\d+)$/.exec(route);
  if (match === null) throw new Error(`not HOST:PORT=TARGET_PORT: ${route}`);
  const [, host, port, target] = match;
  const server = createServer({ cert, key }, (tls) => {
    const plain = connect(Number(target), '127.0.0.1');
    tls.pipe(plain).pipe(tls);
    const end = () => {
      tls.destroy();
      plain.destroy();
    };
    tls.on('error', end).on('close', end);
    plain.on('error', end).on('close', end);
  });
  return new Promise<typeof server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(port), host, () => resolve(server));
  });
});

const listening = await Promise.all(servers);
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  for (const server of listening) server.close();
  process.exit(0);
});
