// A unix socket in front of a private dockerd that passes every byte through and keeps the
// request line of each request it sees (`POST /v1.41/images/load?quiet=1`), so a test can say
// what the node half asked Docker, and what it never did. It belongs to root and the docker
// group, mode 0660, as /var/run/docker.sock is. A request line split across two reads would
// pass unrecorded; the tests that assert an absence also assert a request they expect.
import { chmodSync, chownSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';

export interface DockerRecorder {
  /** For a request's docker_host. */
  host: string;
  /** The request lines seen so far, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const REQUEST_LINE = /(?:^|\r\n)((?:GET|HEAD|POST|PUT|DELETE) \S+) HTTP\/1\.[01]\r\n/g;

export async function recordDocker(
  upstream: string,
  path: string,
  dockerGid: number,
): Promise<DockerRecorder> {
  const requests: string[] = [];
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const daemon = createConnection(upstream);
    for (const socket of [client, daemon]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (bytes: Buffer) => {
      for (const match of bytes.toString('latin1').matchAll(REQUEST_LINE))
        requests.push(match[1] as string);
    });
    client.pipe(daemon).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  chownSync(path, 0, dockerGid);
  chmodSync(path, 0o660);
  return {
    host: `unix://${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
