// FLEET-02 (issue #25 item 3, issue #39 item 10): docs/schema/ holds the JSON Schema of every
// --json event type and of each document (status, bundle, command), generated from the
// contract's zod schemas, each with a URN $id, a title and a description; what the code makes
// passes them. The published files are open (a field added within a format passes them, as the
// contract allows), while this project's own strict check still refuses a field the contract
// does not name; `exit` is 0 to 255.
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
import { jsonSchemaFiles, strictJsonSchemaFiles } from '../../src/cli/json-schemas.ts';
import {
  jsonEventProblems,
  publishedSchemaProblem,
  schemaProblem,
} from '../helpers/json-contract.ts';

test('FLEET-02 docs/schema/ is what the code generates: one file per event type and per document', () => {
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
  for (const name of ['status.json', 'bundle.json', 'command.json'])
    assert.ok(files.includes(name), name);
});

/** Every subschema of a JSON Schema document, the document first. */
function subschemas(schema: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(schema)) return schema.flatMap(subschemas);
  if (typeof schema !== 'object' || schema === null) return [];
  const object = schema as Record<string, unknown>;
  return [object, ...Object.values(object).flatMap(subschemas)];
}

test('FLEET-02 issue #39 item 10 each published file names itself (a URN $id, a title, a description) and closes no object', () => {
  const ids = new Set<string>();
  for (const [name, schema] of Object.entries(jsonSchemaFiles())) {
    const { $id, title, description } = schema as Record<string, unknown>;
    assert.equal($id, `urn:oac-node:schema:${name.replace(/\.json$/, '')}:1`, name);
    ids.add(String($id));
    assert.ok(typeof title === 'string' && title.startsWith('oac-node '), `${name}: title`);
    assert.ok(typeof description === 'string' && description.length > 10, `${name}: description`);
    assert.deepEqual(
      subschemas(schema).filter((s) => 'additionalProperties' in s),
      [],
      `${name}: a field added within format 1 passes it`,
    );
  }
  assert.equal(ids.size, Object.keys(jsonSchemaFiles()).length, 'each $id is its own');
});

test('FLEET-02 issue #39 item 10 the strict variant our tests use is the published file with every object closed, and nothing else', () => {
  const published = jsonSchemaFiles();
  const strict = strictJsonSchemaFiles();
  assert.deepEqual(Object.keys(strict), Object.keys(published));
  for (const [name, schema] of Object.entries(strict)) {
    const closed = subschemas(schema).filter((s) => s.type === 'object');
    assert.ok(closed.length > 0, name);
    for (const object of closed) assert.equal(object.additionalProperties, false, name);
    const opened = JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
      key === 'additionalProperties' && value === false ? undefined : value,
    ) as unknown;
    assert.deepEqual(opened, published[name], name);
  }
});

test('FLEET-02 issue #39 item 10 an event with a field added passes the published file, as a consumer reads it; our strict check refuses it', () => {
  const newer = {
    type: 'error',
    code: 'not_root',
    message: 'm',
    hint: null,
    details: [],
    exit: 1,
    added_later: { anything: true },
  };
  assert.equal(publishedSchemaProblem('event-error.json', newer), undefined);
  assert.match(schemaProblem('event-error.json', newer) ?? '', /^strict .*added_later/);
  // Nested objects too: a step-plan's action, a status document's core.
  const action = { kind: 'create', detail: 'd', added_later: 1 };
  const plan = { type: 'step-plan', step: 's', action };
  assert.equal(publishedSchemaProblem('event-step-plan.json', plan), undefined);
  assert.match(jsonEventProblems(`${JSON.stringify(plan)}\n`).join(''), /added_later/);
  // Added fields do not make a wrong value right.
  assert.match(
    publishedSchemaProblem('event-step-plan.json', { ...plan, action: { ...action, kind: 'x' } }) ??
      '',
    /kind/,
  );
});

test('FLEET-02 issue #39 item 10 exit is an integer 0 to 255; status keeps its core.state values as listed', () => {
  const error = { type: 'error', code: 'c', message: 'm', hint: null, exit: 0 };
  for (const exit of [0, 1, 64, 130, 255])
    assert.equal(schemaProblem('event-error.json', { ...error, exit }), undefined, String(exit));
  for (const exit of [-1, 256, 2 ** 53 - 1, 1.5])
    assert.ok(schemaProblem('event-error.json', { ...error, exit }) !== undefined, String(exit));
  const status = jsonSchemaFiles()['status.json'] as {
    properties: { core: { properties: { state: { enum: string[]; description: string } } } };
  };
  const state = status.properties.core.properties.state;
  assert.ok(state.enum.includes('not ready') && state.enum.includes('not registered'));
  assert.match(state.description, /spaces included/);
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
