// NODE-04 readiness, checked for real: a private dockerd that the test stops and starts, an
// image that is missing and then loaded, microsandbox files corrupted and restored, /dev/kvm
// opened by root and by an account that may not. Each fix clears the code on the next report
// without restarting the node.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCore, type TestCore } from '../helpers/core.ts';
import { executableForAnyone } from '../helpers/executable.ts';
import {
  dockerAdapter,
  startRun,
  waitForNode,
  registerNode,
  type RegisteredNode,
} from '../helpers/node.ts';
import {
  privateDockerd,
  runtimeImageArchive,
  type PrivateDockerd,
} from '../helpers/private-dockerd.ts';
// The node checks /dev/kvm before any file: without KVM here it can only say host_unsupported.
import { noKvm } from '../helpers/kvm.ts';

const NOBODY = 65534;
let scratch: string;

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'oac-ready-'));
  chmodSync(scratch, 0o755); // the KVM test runs the node as nobody
});
after(() => rmSync(scratch, { recursive: true, force: true }));

function register(
  core: TestCore,
  name: string,
  adapter: Record<string, unknown>,
): Promise<RegisteredNode> {
  return registerNode(core, join(scratch, name), adapter, name);
}

const code =
  (c: string | null) => (n: { readiness_code: string | null; provider_ready: boolean }) =>
    n.readiness_code === c && n.provider_ready === (c === null);

test('NODE-04 Docker: missing image, then loaded; dockerd stopped, then started: each fix clears the code', async () => {
  const core = await startCore();
  const dockerd: PrivateDockerd = privateDockerd(join(scratch, 'docker'));
  try {
    await dockerd.start();
    const runtime = await runtimeImageArchive(join(scratch, 'build'));
    const node = await register(core, 'docker', dockerAdapter(dockerd.host, runtime.reference));
    const run = startRun(node);
    try {
      await waitForNode(core, node.nodeId, code('runtime_image_unavailable'));
      assert.equal(dockerd.docker(['load', '-i', runtime.archive]).status, 0);
      await waitForNode(core, node.nodeId, code(null));
      assert.equal(dockerd.docker(['image', 'rm', runtime.reference]).status, 0);
      await waitForNode(core, node.nodeId, code('runtime_image_unavailable'));
      // Order: an unreachable daemon hides the missing image.
      await dockerd.stop();
      await waitForNode(core, node.nodeId, code('provider_unavailable'));
      await run.waitFor(/Readiness: provider_unavailable \(Docker at unix:\/\/\S+ does not answer/);
      await dockerd.start();
      await waitForNode(core, node.nodeId, code('runtime_image_unavailable'));
      assert.equal(dockerd.docker(['load', '-i', runtime.archive]).status, 0);
      await waitForNode(core, node.nodeId, code(null));
      assert.equal(run.child.exitCode, null, 'the node was never restarted');
    } finally {
      await run.stop();
    }
  } finally {
    await dockerd.stop();
    await core.stop();
  }
});

test('NODE-04 Docker without memory limit support is host_unsupported, hiding a missing image', async () => {
  const core = await startCore();
  const dockerd = privateDockerd(join(scratch, 'docker-nolimits'), { memoryLimits: false });
  try {
    await dockerd.start();
    assert.match(dockerd.docker(['info', '--format', '{{json .}}']).stdout, /"MemoryLimit":false/);
    const node = await register(
      core,
      'nolimits',
      dockerAdapter(dockerd.host, 'oac-runtime:absent'),
    );
    const run = startRun(node);
    try {
      await waitForNode(core, node.nodeId, code('host_unsupported'));
      await run.waitFor(/Docker on this host does not enforce CPU and memory limits/);
    } finally {
      await run.stop();
    }
  } finally {
    await dockerd.stop();
    await core.stop();
  }
});

test('NODE-04 capacity: a specification larger than the host is capacity_insufficient', async () => {
  const core = await startCore();
  const dockerd = privateDockerd(join(scratch, 'docker-capacity'));
  try {
    await dockerd.start();
    const spec = { release: 'none', cpus: 4096, memory_mib: 256 };
    const r = await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: spec });
    assert.ok(r.status < 300, JSON.stringify(r.body));
    const node = await register(core, 'huge', dockerAdapter(dockerd.host, 'oac-runtime:absent'));
    const run = startRun(node);
    try {
      // Capacity comes before the Runtime image in the order, so the missing image stays hidden.
      await waitForNode(core, node.nodeId, code('capacity_insufficient'));
      await run.waitFor(/each sandbox needs 4096 CPUs/);
    } finally {
      await run.stop();
    }
  } finally {
    await dockerd.stop();
    await core.stop();
  }
});

function microsandboxFiles(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const runtime = randomBytes(4096);
  const firmware = randomBytes(2048);
  writeFileSync(join(dir, 'runtime'), runtime, { mode: 0o644 });
  writeFileSync(join(dir, 'firmware'), firmware, { mode: 0o644 });
  writeFileSync(join(dir, 'helper'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  return {
    helper_path: join(dir, 'helper'),
    runtime_path: join(dir, 'runtime'),
    firmware_path: join(dir, 'firmware'),
    runtime_sha256: sha(runtime),
    firmware_sha256: sha(firmware),
    image: 'oac-runtime:none',
    ...{
      cpus: 1,
      memory_mib: 256,
      root_disk_mib: 1024,
      environment_disk_mib: 1024,
      network: 'public',
    },
    runtime_home: join(dir, 'home'),
  };
}

test(
  'NODE-04 microsandbox: a corrupted or missing provider file is artifacts_unavailable until restored',
  { skip: noKvm },
  async () => {
    const core = await startCore(['--provider', 'microsandbox']);
    try {
      const adapter = microsandboxFiles(join(scratch, 'ms-files'));
      const node = await register(core, 'microsandbox', adapter);
      const run = startRun(node);
      try {
        await waitForNode(core, node.nodeId, code(null)); // root opens /dev/kvm read-write
        assert.equal(
          statSync(adapter.runtime_home).mode & 0o777,
          0o700,
          'runtime_home created 0700',
        );
        copyFileSync(adapter.runtime_path, `${adapter.runtime_path}.good`);
        writeFileSync(adapter.runtime_path, 'corrupted');
        await waitForNode(core, node.nodeId, code('artifacts_unavailable'));
        await run.waitFor(/Runtime \S+ fails its SHA-256 check/);
        copyFileSync(`${adapter.runtime_path}.good`, adapter.runtime_path);
        await waitForNode(core, node.nodeId, code(null));
        chmodSync(adapter.helper_path, 0o644);
        await waitForNode(core, node.nodeId, code('artifacts_unavailable'));
        chmodSync(adapter.helper_path, 0o755);
        await waitForNode(core, node.nodeId, code(null));
      } finally {
        await run.stop();
      }
    } finally {
      await core.stop();
    }
  },
);

test('NODE-04 KVM: an account that cannot open /dev/kvm read-write is host_unsupported, before any file check', async () => {
  const core = await startCore(['--provider', 'microsandbox']);
  try {
    const adapter = microsandboxFiles(join(scratch, 'kvm-files'));
    writeFileSync(adapter.runtime_path, 'corrupted too: hidden by the KVM failure');
    const node = await register(core, 'kvm', adapter);
    // The node runs as nobody, which /dev/kvm (root 0600 here, or root:kvm 0660) does not admit.
    chownSync(node.stateDir, NOBODY, NOBODY);
    chownSync(join(scratch, 'kvm-files'), NOBODY, NOBODY); // where it creates runtime_home
    chownSync(join(node.stateDir, 'identity.json'), NOBODY, NOBODY);
    const executable = executableForAnyone();
    const run = startRun(node, [], { uid: NOBODY, gid: NOBODY, executable });
    try {
      await waitForNode(core, node.nodeId, code('host_unsupported'));
      await run.waitFor(/\/dev\/kvm cannot be opened for reading and writing/);
    } finally {
      await run.stop();
    }
  } finally {
    await core.stop();
  }
});
