// OPS-04 (issue #25 item 5): a user who clones the repository can follow every link of its
// README and docs. Relative links (`[text](path)`) must resolve to a file or directory inside
// the repository, and nothing may point beside it (`../shared/…`, the workplace's own files).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Markdown files a user reads: the README, docs/ and the Ansible role's. */
function markdownFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  walk('deploy');
  return found;
}

/** The relative link targets of a Markdown text (URLs and in-page anchors left out). */
export function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => t.replace(/#.*$/, ''));
}

test('OPS-04 the link finder reads relative links and passes over URLs and anchors', () => {
  const text = '[a](docs/x.md) [b](https://example.test/y) [c](#here) [d](../z.md#part "t")';
  assert.deepEqual(relativeLinks(text), ['docs/x.md', '../z.md']);
});

test('OPS-04 every relative link of the README and the docs resolves inside the repository', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(repo, file), 'utf8');
    for (const link of relativeLinks(text)) {
      const target = resolve(repo, dirname(file), link);
      const inside = !relative(repo, target).startsWith(`..${sep}`) && target !== repo;
      if (!inside || !existsSync(target)) broken.push(`${file}: ${link}`);
    }
  }
  assert.deepEqual(broken, [], 'links that leave the repository or lead nowhere');
});

/** The lines of `file` that name a file beside the repository (../shared, DESIGN.md, STYLE.md,
 *  the seeds or recipes), as `file:line`. */
function namesOutside(file: string): string[] {
  const outside =
    /\.\.\/(shared|seeds|recipes|spec)\b|\b(recipes|seeds)\/[a-z]|\b(DESIGN|STYLE)\.md\b/;
  return readFileSync(join(repo, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (outside.test(line) ? [`${file}:${i + 1}`] : []));
}

test('OPS-04 no README or doc names a file beside the repository (../shared, DESIGN.md, STYLE.md, its seeds or recipes)', () => {
  const outside = markdownFiles().flatMap(namesOutside);
  assert.deepEqual(outside, []);
});

test('OPS-04 the requirements the tests cite are kept in the repository', () => {
  const spec = readFileSync(join(repo, 'docs', 'requirements.md'), 'utf8');
  assert.match(spec, /^- OPS-04 /m);
  assert.match(spec, /^- SEC-01 /m);
});

test('issue #38 no code comment cites a file beside the repository (DESIGN.md, STYLE.md, the seeds or recipes): they cite docs/', () => {
  const dirs = [
    'src',
    'installer',
    'uninstaller',
    'records',
    'scripts',
    'test',
    'fixtures',
    'bench',
    'deploy',
  ];
  const code = /\.(ts|js|mjs|cjs|sh)$/;
  const files = [
    'eslint.config.js',
    ...dirs.flatMap((dir) =>
      readdirSync(join(repo, dir), { recursive: true, encoding: 'utf8' })
        .filter((name) => code.test(name) && !name.includes('node_modules'))
        .map((name) => join(dir, name)),
    ),
  ].filter((file) => file !== join('test', 'unit', 'docs-links.test.ts')); // this file names them
  const outside = files.flatMap(namesOutside);
  assert.ok(files.length > 200, `only ${files.length} files read`);
  assert.deepEqual(outside, []);
});
