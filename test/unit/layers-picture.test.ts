// Issue #23: docs/architecture.md's picture of the layers (docs/layers.svg) is the code's: drawn
// by scripts/layers-picture.ts from the product's imports and eslint.config.js's LAYERS. This
// fails when the committed picture no longer matches the code (`npm run docs:layers` redraws it),
// and when a layer imports one above it (the picture would then be a lie the lint also refuses).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { drawLayers, measureLayers, PICTURE } from '../../scripts/layers-picture.ts';

test('issue #23 docs/layers.svg is the picture the code draws today', () => {
  assert.equal(
    readFileSync(PICTURE, 'utf8'),
    drawLayers(measureLayers()),
    'docs/layers.svg is out of date: run npm run docs:layers',
  );
});

test('issue #23 every layer imports only layers below it, and the core none of the domain', () => {
  const layers = measureLayers();
  const order = layers.map((l) => l.name);
  for (const l of layers)
    for (const used of l.uses.keys())
      assert.ok(order.indexOf(used) < order.indexOf(l.name), `${l.name} imports ${used}`);
  const core = layers.find((l) => l.name === 'core');
  assert.ok(core !== undefined && core.files > 0);
  assert.deepEqual(
    [...core.uses.keys()].sort(),
    ['leaf'],
    'the core imports only the leaf modules',
  );
});
