// A TCP forwarder on loopback standing where a reverse proxy stands in front of Core. Taking it
// down closes the listener and cuts every live connection, which is what a node sees when Core
// goes away; bringing it up again on the same port is Core coming back. Core itself keeps its
// state, as a real Core does across an outage.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface Forwarder {
  port: number;
  target: number;
  /** New connections are accepted and never answered: a Core that hangs (a black hole). */
  silent: boolean;
  /** Connections accepted so far (a test waits for the node to reach the forwarder). */
  accepted: number;
  up(): Promise<void>;
  down(): Promise<void>;
}

export async function tcpForwarder(): Promise<Forwarder> {
  const live = new Set<Socket>();
  let server: Server | undefined;
  const forwarder: Forwarder = {
    port: 0,
    target: 0,
    silent: false,
    accepted: 0,
    up,
    down,
  };

  function listen(port: number): Promise<void> {
    server = createServer((client) => {
      forwarder.accepted += 1;
      live.add(client);
      client.on('close', () => live.delete(client));
      client.on('error', () => client.destroy());
      if (forwarder.silent) return;
      const upstream = createConnection({ host: '127.0.0.1', port: forwarder.target });
      for (const socket of [client, upstream]) {
        live.add(socket);
        socket.on('close', () => live.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    return new Promise((resolve, reject) => {
      server?.once('error', reject);
      server?.listen(port, '127.0.0.1', () => {
        const address = server?.address();
        if (address !== null && typeof address === 'object') forwarder.port = address.port;
        resolve();
      });
    });
  }

  async function up(): Promise<void> {
    await listen(forwarder.port);
  }

  async function down(): Promise<void> {
    const closing = new Promise<void>((resolve) =>
      server ? server.close(() => resolve()) : resolve(),
    );
    for (const socket of live) socket.destroy();
    await closing;
    server = undefined;
  }

  await listen(0);
  return forwarder;
}
