// Run inside a test host's network namespace (helpers/core-in-host.ts spawnInHostNet): listens on
// 127.0.0.1:PORT for each `PORT=SOCKET` argument and carries every connection to the Unix socket
// SOCKET, which the test serves on this machine. A Unix socket belongs to no network namespace:
// it is how a host reaches a Core that listens in another host's (a copied host reaching the
// original's Core, test/e2e/copied-host.test.ts). Prints `ready` once every port listens.
import { createConnection, createServer } from 'node:net';

const pairs = process.argv.slice(2).map((arg) => {
  const [port, socket] = arg.split('=');
  if (port === undefined || socket === undefined) throw new Error(`not PORT=SOCKET: ${arg}`);
  return { port: Number(port), socket };
});

await Promise.all(
  pairs.map(
    ({ port, socket }) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer((client) => {
          const upstream = createConnection(socket);
          const end = () => {
            client.destroy();
            upstream.destroy();
          };
          client.on('error', end);
          upstream.on('error', end);
          client.pipe(upstream).pipe(client);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
  ),
);
process.stdout.write('ready\n');
