// OPS-04 (issue #25 item 5): the docs' pictures are generated from sources in the repository by
// a tool from Debian's packages (Graphviz), and the SVG files checked in are exactly what those
// sources make today (bash scripts/pictures.sh writes them); each is shown by a doc.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PICTURES = fileURLToPath(new URL('../../docs/pictures/', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const sources = readdirSync(PICTURES).filter((n) => n.endsWith('.dot'));

test('OPS-04 each picture in docs/pictures/ is what Graphviz makes of its source', () => {
  assert.ok(sources.length >= 4, 'the line, the files, the rollout, the uninstall');
  for (const source of sources) {
    const made = execFileSync('dot', ['-Tsvg', `${PICTURES}${source}`], { encoding: 'utf8' });
    const svg = source.replace(/\.dot$/, '.svg');
    assert.equal(
      readFileSync(`${PICTURES}${svg}`, 'utf8'),
      made,
      `${svg}: bash scripts/pictures.sh`,
    );
  }
  const svgs = readdirSync(PICTURES).filter((n) => n.endsWith('.svg'));
  assert.equal(svgs.length, sources.length, 'no picture without its source');
});

test('OPS-04 every picture is shown in a doc', () => {
  const docs = readdirSync(DOCS)
    .filter((n) => n.endsWith('.md'))
    .map((n) => readFileSync(`${DOCS}${n}`, 'utf8'))
    .join('\n');
  for (const source of sources) {
    const svg = `pictures/${source.replace(/\.dot$/, '.svg')}`;
    assert.ok(docs.includes(`](${svg})`), `${svg} is shown by a page of docs/`);
  }
});
