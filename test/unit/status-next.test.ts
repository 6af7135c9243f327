// OPS-06 (issue #39 item 7): status names what to do next with the exact command, built from
// what the host records: the repair of a drifted host is the rerun a registered node takes (no
// token, stdin closed, the recorded Core, ID and checkpoint store), proxy variables by name only;
// a node Core does not have ready points at the service's log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextSteps, repairLines, type NextInputs } from '../../installer/status-next.ts';
import type { NodeStatus } from '../../installer/status.ts';

const ID = '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f';
const UNIT = `oac-node-${ID}.service`;
const inputs = (over: Partial<NextInputs['recorded']['inputs']> = {}): NextInputs => ({
  recorded: {
    installation_id: ID,
    core_url: 'https://core.example:8443',
    inputs: { provider: 'docker', group: 'docker', checkpoint_root: null, ...over },
    registered_node: 'n-1',
  },
  proxyNames: [],
});
const judged = (
  over: Partial<Pick<NodeStatus, 'core' | 'service' | 'node_half' | 'other_host'>> = {},
) => ({
  other_host: false,
  resources: [] as NodeStatus['resources'],
  core: { state: 'ready' as const },
  service: { unit: UNIT, enabled: true, active: true },
  node_half: { state: 'checked' as const },
  ...over,
});
const drifted: NodeStatus['resources'] = [
  { key: 'unit', kind: 'unit', name: UNIT, ownership: 'owned', state: 'missing' },
];

test('OPS-06 all well: nothing to do', () => {
  assert.deepEqual(nextSteps(judged(), inputs()), []);
});

test('OPS-06 a drifted host: the exact rerun, with the recorded Core, ID and checkpoint store, stdin closed', () => {
  const steps = nextSteps({ ...judged(), resources: drifted }, inputs());
  assert.deepEqual(steps, [
    `Repair the host with: sudo oac-node install --core-url https://core.example:8443 --installation-id ${ID} < /dev/null`,
  ]);
  const [store] = repairLines(inputs({ checkpoint_root: "/srv/o'dd store" }));
  assert.match(store ?? '', / --checkpoint-root '\/srv\/o'\\''dd store' < \/dev\/null$/);
});

test('OPS-06 SEC-03 a host with saved proxy settings: the repair in a root shell with them exported (sudo would drop them), their names only', () => {
  const o = { ...inputs(), proxyNames: ['https_proxy', 'no_proxy'] };
  assert.deepEqual(nextSteps({ ...judged(), resources: drifted }, o), [
    'Repair the host in a root shell (sudo -i), with https_proxy, no_proxy exported as at install:',
    `  oac-node install --core-url https://core.example:8443 --installation-id ${ID} < /dev/null`,
  ]);
});

test('OPS-06 a node never registered, or a program that is not the installed one: the line from Web again, never the program on the host', () => {
  const unregistered = { ...inputs(), recorded: { ...inputs().recorded, registered_node: null } };
  const notRegistered = nextSteps(
    {
      ...judged({ core: { state: 'not registered' }, node_half: { state: 'unknown' } }),
      resources: drifted,
    },
    unregistered,
  );
  assert.deepEqual(notRegistered, [
    'The node is not registered: copy the line from Web (Nodes → Add node) and paste it here again',
  ]);
  const swapped: NodeStatus['resources'] = [
    { key: 'program', kind: 'file', name: 'p', ownership: 'owned', state: 'drifted' },
  ];
  const program = nextSteps({ ...judged(), resources: swapped }, inputs());
  assert.match(program[0] ?? '', /^The program here is not the installed one: .*Web/);
  assert.ok(!program.join('\n').includes('oac-node install'), 'never runs the swapped program');
});

test('OPS-06 Core does not have the node ready: the service log, or starting a stopped service', () => {
  const running = nextSteps(judged({ core: { state: 'disconnected' } }), inputs());
  assert.deepEqual(running, [
    `The service runs but Core does not have the node ready; its log says why: sudo journalctl -u ${UNIT} -n 50`,
  ]);
  const stopped = nextSteps(
    judged({ core: { state: 'not ready' }, service: { unit: UNIT, enabled: true, active: false } }),
    inputs(),
  );
  assert.match(stopped[0] ?? '', new RegExp(`sudo systemctl start ${UNIT}`));
});

test('OPS-06 Core removed the node: uninstall, and nothing else', () => {
  const steps = nextSteps(
    { ...judged({ core: { state: 'removed' } }), resources: drifted },
    inputs(),
  );
  assert.deepEqual(steps, [
    'Core removed this node: remove it from the host with sudo oac-node uninstall',
  ]);
});

test('OPS-06 Core unreachable or Docker silent: what to check, each named', () => {
  const steps = nextSteps(
    judged({ core: { state: 'unreachable' }, node_half: { state: 'unknown', detail: 'x' } }),
    { ...inputs(), proxyNames: ['https_proxy'] },
  );
  assert.equal(steps.length, 1, 'the node half unchecked because Core was not: no Docker advice');
  assert.match(
    steps[0] ?? '',
    /reaches https:\/\/core\.example:8443 \(through the saved https_proxy\)/,
  );
  const docker = nextSteps(judged({ node_half: { state: 'unknown', detail: 'x' } }), inputs());
  assert.deepEqual(docker, [
    'The node half was not checked: see that Docker answers (sudo docker info)',
    // Issue #40: what status cannot name, a support bundle for the ticket.
    'If the cause is not clear: sudo oac-node diagnose writes a support bundle for a ticket',
  ]);
});

test('NODE-06 a copied host: only its two fixes, the uninstall --force and the confirmation with --same-host', () => {
  const copied = judged({ other_host: true, core: { state: 'unknown' } });
  assert.deepEqual(nextSteps(copied, inputs()), [
    `To make this host a node of its own (the original host keeps the node): sudo oac-node uninstall --installation-id ${ID} --force, then copy the line from Web (Nodes → Add node) and paste it here again`,
    `Only if this is the same host and its machine ID was changed on purpose, confirm it with: sudo oac-node install --core-url https://core.example:8443 --installation-id ${ID} --same-host < /dev/null`,
  ]);
  const proxied = nextSteps(copied, { ...inputs(), proxyNames: ['https_proxy'] });
  assert.match(
    proxied[1] ?? '',
    /confirm it in a root shell \(sudo -i\), with https_proxy exported/,
  );
  assert.match(proxied[2] ?? '', /--same-host < \/dev\/null$/);
});
