// REL-01 (issue #26 item 1): the host's real dockerd stopped in the middle of one request of the
// installer's. The real socket is renamed (its listening descriptor, docker.socket's, keeps
// working under the new name), and this test process listens at /run/docker.sock inside the host
// (reached from here through /proc/<host PID 1>/root: a path socket is a file of the host's
// /run, connected to by inode whatever the namespace), root:docker 0660 like the real one. Every
// connection is passed through to the real socket, byte for byte, until a request matches: then
// `after` bytes of it are passed on, dockerd is stopped (systemctl stop docker.socket
// docker.service, inside the host), and the connection is cut. clear() closes the listener and
// its connections, removes both names and starts Docker again, which binds a fresh
// /run/docker.sock. A request is matched within one read (undici writes a request's head at
// once); a request line split across two reads would pass through unmatched, and the test,
// which asserts the hit, would say so.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { chmodSync, chownSync } from 'node:fs';
import type { E2eHost } from '../harness/host.ts';

export interface DockerFault {
  /** The request lines that matched, in order (`POST /images/load?quiet=1 HTTP/1.1`). */
  readonly hits: string[];
  /** The exit status of `systemctl stop` in the host, once the fault has fired. */
  readonly stopped: Promise<number | null>;
  /** Stops the fault and starts Docker again. Idempotent. */
  clear(): Promise<void>;
}

const STOP_DOCKER = 'systemctl stop docker.socket docker.service';

/** Arms the fault: the first request that matches `request` (its request line, e.g.
 *  /POST \S*\/images\/load/) is cut once `after` bytes of it (headers included) reached dockerd,
 *  and dockerd is stopped there; `after` 0: dockerd is stopped before it sees the request. */
export async function stopDockerDuring(
  host: E2eHost,
  request: RegExp,
  after: number,
): Promise<DockerFault> {
  const inside = (path: string) => `/proc/${host.leaderPid}/root${path}`;
  const gid = Number(await host.shOk('getent group docker | cut -d: -f3'));
  await host.shOk('mv /run/docker.sock /run/docker-real.sock');
  const hits: string[] = [];
  let fired = false;
  let stopStatus: (status: number | null) => void = () => undefined;
  const stopped = new Promise<number | null>((resolve) => (stopStatus = resolve));
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(inside('/run/docker-real.sock'));
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    }
    /** Bytes of the matched request still to pass on; undefined before the match. */
    let budget: number | undefined;
    const passOn = (bytes: Buffer) => {
      if (budget === undefined) return void upstream.write(bytes);
      const part = bytes.subarray(0, budget);
      if (part.length > 0) upstream.write(part);
      budget -= part.length;
      if (budget > 0) return;
      budget = -1; // stopped: nothing more passes
      client.pause();
      void host
        .sh(STOP_DOCKER)
        .then(
          (r) => stopStatus(r.status),
          () => stopStatus(null),
        )
        .finally(() => cut(client, upstream));
    };
    client.on('data', (chunk: Buffer) => {
      if (budget !== undefined && budget <= 0) return;
      const at = fired ? -1 : chunk.toString('latin1').search(request);
      if (at < 0) return passOn(chunk);
      fired = true;
      hits.push(chunk.toString('latin1', at).split('\r\n')[0] ?? '');
      passOn(chunk.subarray(0, at));
      budget = after;
      passOn(chunk.subarray(at));
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('error', () => cut(client, upstream));
    client.on('error', () => cut(client, upstream));
    upstream.on('end', () => client.end());
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(inside('/run/docker.sock'), () => resolve());
  });
  chownSync(inside('/run/docker.sock'), 0, gid);
  chmodSync(inside('/run/docker.sock'), 0o660);
  let cleared: Promise<void> | undefined;
  return {
    hits,
    stopped,
    clear() {
      cleared ??= (async () => {
        // close() waits for every connection: the ones still open are cut first.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of open) socket.destroy();
        await closed;
        await host.shOk(
          'rm -f /run/docker.sock /run/docker-real.sock && systemctl start docker.socket docker.service',
        );
      })();
      return cleared;
    },
  };
}

function cut(client: Socket, upstream: Socket): void {
  client.destroy();
  upstream.destroy();
}
