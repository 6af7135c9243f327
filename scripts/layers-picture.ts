// Draws docs/layers.svg from the code (issue #23): the layers eslint.config.js holds (LAYERS),
// bottom up, each box with its number of files and the layers below it that it imports (names
// only, so an edit that moves no import leaves the picture as it is). Measured from the product's own imports at every run, so the picture
// is the code's, never a drawing kept by hand: `npm run docs:layers` redraws it, and
// test/unit/layers-picture.test.ts fails when the committed picture no longer matches.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYERS } from '../eslint.config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LEAF = 'src/*.ts';

interface Layer {
  dir: string;
  name: string;
  files: number;
  lines: number;
  /** Import lines into each layer below, by its name. */
  uses: Map<string, number>;
}

/** Every .ts file under `dir` (relative to the repository). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir))) {
    const rel = `${dir}/${entry}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...tsFiles(rel));
    else if (entry.endsWith('.ts')) out.push(rel);
  }
  return out.sort();
}

/** The layer a repository path lies in: the first folder of LAYERS holding it, or the leaf. */
function layerOf(path: string): string | undefined {
  for (const [dir, name] of LAYERS as Array<[string, string]>)
    if (path.startsWith(`${dir}/`)) return name;
  return /^src\/[^/]+\.ts$/.test(path) ? 'leaf' : undefined;
}

/** The layers, bottom up (the leaf modules first), with what each imports. */
export function measureLayers(): Layer[] {
  const layers: Layer[] = [
    { dir: LEAF, name: 'leaf', files: 0, lines: 0, uses: new Map() },
    ...LAYERS.map(([dir, name]) => ({
      dir: `${dir}/`,
      name,
      files: 0,
      lines: 0,
      uses: new Map<string, number>(),
    })),
  ];
  const byName = new Map(layers.map((l) => [l.name, l]));
  const files = [
    ...readdirSync(join(root, 'src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/${f}`),
    ...LAYERS.flatMap(([dir]) => tsFiles(dir)),
  ];
  for (const file of files) {
    const layer = byName.get(layerOf(file) ?? '');
    if (layer === undefined) continue;
    const text = readFileSync(join(root, file), 'utf8');
    layer.files += 1;
    layer.lines += text.split('\n').length - 1;
    // Static, side-effect and dynamic imports alike (lint sees only the first two).
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(root, normalize(join(root, dirname(file), m[1] as string)));
      const to = layerOf(target);
      if (to === undefined || to === layer.name) continue;
      layer.uses.set(to, (layer.uses.get(to) ?? 0) + 1);
    }
  }
  return layers;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The picture: one box a layer, the top layer first, each naming what it imports below it. */
export function drawLayers(layers: Layer[]): string {
  const width = 900;
  const row = 46;
  const top = 56;
  const order = layers.map((l) => l.name);
  const shown = [...layers].reverse();
  const height = top + shown.length * row + 30;
  const boxes = shown.map((l, i) => {
    const y = top + i * row;
    const uses = [...l.uses]
      .sort((a, b) => order.indexOf(b[0]) - order.indexOf(a[0]))
      .map(([name]) => name)
      .join(' · ');
    const fill = ['core', 'resources', 'node', 'installation', 'agent'].includes(l.name)
      ? '#dbe8f6'
      : '#eef1f4';
    return [
      `<rect x="20" y="${y}" width="${width - 40}" height="${row - 8}" rx="6" fill="${fill}" stroke="#56687a"/>`,
      `<text x="32" y="${y + 17}" font-size="14" font-weight="bold">${esc(l.dir)}</text>`,
      `<text x="250" y="${y + 17}" font-size="12" fill="#333">${l.files} files</text>`,
      `<text x="32" y="${y + 33}" font-size="12" fill="#333">${esc(uses === '' ? 'imports no layer' : `imports: ${uses}`)}</text>`,
    ].join('\n  ');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `  <rect width="${width}" height="${height}" fill="white"/>`,
    `  <text x="20" y="26" font-size="16" font-weight="bold">oac-node: the layers, top to bottom (each imports only those below it)</text>`,
    `  <text x="20" y="44" font-size="12" fill="#555">Drawn from the code by scripts/layers-picture.ts; held by eslint.config.js (LAYERS). Blue: the declarative core and its domain.</text>`,
    `  ${boxes.join('\n  ')}`,
    '</svg>',
    '',
  ].join('\n');
}

export const PICTURE = join(root, 'docs/layers.svg');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(PICTURE, drawLayers(measureLayers()));
  console.log(`wrote ${relative(root, PICTURE)}`);
}
