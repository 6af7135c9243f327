// FLEET-02 (issue #25 item 3): docs/schema/ holds the JSON Schema of every --json event type and
// of the status document, generated from the contract's zod schemas; what the code makes
// passes them, and a field the contract does not name does not.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SCHEMA_DIR, schemaTexts } from '../../scripts/json-schema.ts';
import { z } from 'zod';
import { JSON_EVENTS } from '../../src/cli/json-schemas.ts';
import { ENGINE_EVENT, ENGINE_EVENTS } from '../../src/core/events.ts';
import { startEvent } from '../../src/cli/json-contract.ts';
import { errorEvent } from '../../src/cli/error-event.ts';
import { summaryOf } from '../../src/cli/install-output.ts';
import { parseInstallationId } from '../../src/layout.ts';
import { oacError } from '../../src/messages.ts';
import { jsonRenderer } from '../../src/ui/render-events.ts';
import { jsonEventProblems, schemaProblem } from '../helpers/json-contract.ts';

test('FLEET-02 docs/schema/ is what the code generates: one file per event type and the status document', () => {
  const texts = schemaTexts();
  const files = readdirSync(SCHEMA_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort();
  assert.deepEqual(files, Object.keys(texts).sort(), 'npm run docs:schema writes them');
  for (const [name, text] of Object.entries(texts))
    assert.equal(
      readFileSync(`${SCHEMA_DIR}/${name}`, 'utf8'),
      text,
      `${name}: npm run docs:schema`,
    );
  for (const type of Object.keys(JSON_EVENTS)) assert.ok(files.includes(`event-${type}.json`));
});

test('FLEET-02 the events the code makes pass their schema files', () => {
  const lines: string[] = [];
  const render = jsonRenderer((t) => lines.push(t));
  render(startEvent('install', true));
  render({ type: 'step-start', step: 'unit', title: 'Service unit', phase: 'unit' });
  render({
    type: 'step-plan',
    step: 'unit',
    action: { kind: 'create', detail: 'write x', why: 'gone' },
  });
  render({ type: 'step-done', step: 'unit', result: { outcome: 'created', detail: 'x' } });
  render({ type: 'progress', step: 'node', file: 'f', received: 1, total: 2, phase: 'start' });
  render({ type: 'waiting', step: 'ready', elapsed: 3, said: 'not ready' });
  const id = parseInstallationId('inst-1');
  render(summaryOf(id, { report: { changed: true }, nodeId: 'n-1', provider: 'docker' }));
  render({ type: 'summary', changed: false, kept: ['user oac-node (adopted)'], recorded: true });
  render(errorEvent(oacError('not_root')));
  render(errorEvent(new Error('a bug')));
  assert.deepEqual(jsonEventProblems(lines.join('')), []);
});

test('FLEET-02 a field the contract does not name, a missing one or an unknown type fails', () => {
  const bad = [
    { type: 'note', step: 's', message: 'm', extra: 1 },
    { type: 'note', step: 's' },
    { type: 'step-done', step: 's', result: { outcome: 'exploded', detail: 'd' } },
    { type: 'no-such-event' },
  ];
  const problems = jsonEventProblems(bad.map((e) => `${JSON.stringify(e)}\n`).join(''));
  assert.equal(problems.length, bad.length, problems.join('\n'));
  assert.match(schemaProblem('status.json', { format: 2 }) ?? '', /status\.json/);
});

test('FLEET-02 issue #38 the engine events are defined once: --json takes the core schemas as they are', () => {
  for (const [type, schema] of Object.entries(ENGINE_EVENTS)) {
    assert.equal(JSON_EVENTS[type as keyof typeof JSON_EVENTS], schema, `${type}: the core's own`);
    // Any event the engine can emit, --json can carry, and the other way round.
    assert.deepEqual(
      z.toJSONSchema(schema),
      z.toJSONSchema(ENGINE_EVENT.options.find((o) => o.shape.type.value === type) ?? z.never()),
      type,
    );
  }
  assert.equal(
    ENGINE_EVENT.options.length,
    Object.keys(ENGINE_EVENTS).length,
    'every event in the union',
  );
});
