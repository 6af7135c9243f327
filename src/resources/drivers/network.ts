// The node's Docker network `oac-node-<id>` (HOST-07), created by the node half with a label
// naming the installation (HOST-08). Root only checks and removes it. A network of that name
// that was there before the install is found, not created: the journal records it adopted and
// uninstall leaves it (DECL-02).
import { z } from 'zod';
import { oacError } from '../../messages.ts';
import {
  DockerApi,
  DockerConnectionLost,
  dockerStopped,
  DockerRefused,
  DockerUnavailable,
} from '../../net/docker-api.ts';
import type { Driver, DriverContext } from '../driver.ts';
import { defineKind } from '../kind.ts';
import { NETWORK_RESOURCE } from '../resources.ts';

export const NETWORK_ACTUAL = z.strictObject({
  exists: z.boolean(),
  /** Docker answered; false: nothing is known about the network. */
  reachable: z.boolean(),
  /** It carries this installation's label (the proof, without a record, that it is ours). */
  labelled: z.boolean(),
  /** Docker is not installed at all (removed for good): no network of it exists any more. */
  dockerRemoved: z.boolean().optional(),
});
export type NetworkActual = z.infer<typeof NETWORK_ACTUAL>;

/** Where an installed Docker Engine leaves its daemon, its units or its data (Debian's docker.io,
 *  Docker's own packages, the snap, a manual install); with none of them and no socket, Docker
 *  is gone for good, its networks with it. Its data root alone keeps the refusal: a Docker
 *  installed again would find the network there. */
const DOCKER_INSTALLED = [
  '/usr/bin/dockerd',
  '/usr/sbin/dockerd',
  '/usr/local/bin/dockerd',
  '/snap/bin/docker',
  '/var/lib/snapd/snap/bin/docker',
  '/lib/systemd/system/docker.service',
  '/usr/lib/systemd/system/docker.service',
  '/etc/systemd/system/docker.service',
  '/lib/systemd/system/docker.socket',
  '/usr/lib/systemd/system/docker.socket',
  '/etc/systemd/system/snap.docker.dockerd.service',
  '/var/lib/docker',
];

export const networkDriver: Driver<'network', NetworkActual> = {
  async probe(r, { host }) {
    const docker = new DockerApi(`unix://${host.path(r.socket)}`);
    try {
      const labels = await docker.networkLabels(r.name);
      return {
        exists: labels !== undefined,
        reachable: true,
        labelled: labels?.[r.label.key] === r.label.value,
      };
    } catch {
      // Issue #38: Docker silent and not even installed (no socket, no daemon, no unit): the
      // network went with it, and an uninstall must not wait for a Docker that never returns.
      const removed = await dockerRemoved(host, r.socket);
      return { exists: false, reachable: removed, labelled: false, dockerRemoved: removed };
    } finally {
      await docker.close();
    }
  },
  // Docker silent: the network may well be there. An uninstall's plan then refuses before its
  // first removal (unknown below), rather than remove the rest and stop at the network, or
  // forget a network it could not check; the record stays, and a run once Docker answers
  // finishes.
  exists: (a) => a.exists || !a.reachable,
  unknown(_r, a) {
    if (a.reachable) return undefined;
    const error = oacError('docker_unavailable');
    return { code: error.code, message: error.message, hint: error.hint };
  },
  diff(r, a) {
    if (!a.reachable)
      return {
        kind: 'skip',
        detail: `network ${r.name} (Docker does not answer)`,
        why: 'Docker does not answer, so the network cannot be checked',
      };
    if (a.exists) return { kind: 'unchanged', detail: `network ${r.name}` };
    const why = a.dockerRemoved === true ? 'Docker is not installed' : 'the network is gone';
    return { kind: 'create', detail: `create network ${r.name}`, why };
  },
  // The node half creates it (HOST-08), labelled with the installation: root never does.
  async apply(r, _action, _actual, { host }) {
    const docker = new DockerApi(`unix://${host.path(r.socket)}`);
    try {
      await docker.createNetwork(r.name, { [r.label.key]: r.label.value });
    } catch (error) {
      throw networkNotCreated(r.name, error);
    } finally {
      await docker.close();
    }
    return { outcome: 'created', detail: `network ${r.name}` };
  },
  async remove(r, a, { host }) {
    if (!a.reachable) throw oacError('docker_unavailable');
    const docker = new DockerApi(`unix://${host.path(r.socket)}`);
    try {
      await docker.removeNetwork(r.name);
    } finally {
      await docker.close();
    }
    return { outcome: 'removed', detail: `network ${r.name}` };
  },
};

async function dockerRemoved(host: DriverContext['host'], socket: string): Promise<boolean> {
  const found = await Promise.all([socket, ...DOCKER_INSTALLED].map((p) => host.lstat(p)));
  return found.every((st) => st === undefined);
}

/** One line the operator can act on: Docker's own refusal (a used-up address pool is the usual
 *  one), or Docker not answering. Anything else stays an internal error. */
function networkNotCreated(network: string, error: unknown): unknown {
  if (error instanceof DockerRefused) {
    const values = { network, detail: error.dockerMessage };
    return oacError('docker_network_refused', values, { cause: error });
  }
  if (error instanceof DockerConnectionLost) return dockerStopped(error);
  if (error instanceof DockerUnavailable)
    return oacError('docker_unavailable', {}, { cause: error });
  return error;
}

/** The node's Docker network as a kind (src/resources/kind.ts): the node half makes it, and
 *  its label proves it ours without a record. */
export const networkKind = defineKind({
  kind: 'network',
  desired: NETWORK_RESOURCE,
  recorded: true,
  driver: networkDriver,
  actual: NETWORK_ACTUAL,
  name: (r) => r.name,
  label: (r) => `network ${r.name}`,
  removal: (r) => `remove network ${r.name}`,
  madeByNode: () => true,
  provable: async (r, ctx) => (await networkDriver.probe(r, ctx)).labelled,
});
