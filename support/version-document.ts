// What this program is (`oac-node version`, issue #39; the support bundle's version.json, issue
// #40): its version, the build (release or test, and the commit it was built from), the Node.js
// inside it, and the formats it reads and writes.
import { JSON_FORMAT, PROGRAM, VERSION, buildOf } from '../src/version.ts';
import { JOURNAL_FORMAT } from '../records/journal.ts';
import { PLAN_FORMAT } from '../src/installation/saved-plan.ts';

const VERSION_FORMAT = 1;

export function versionDocument() {
  return {
    format: VERSION_FORMAT,
    program: PROGRAM,
    version: VERSION,
    build: buildOf(),
    node: process.versions.node,
    formats: { record: JOURNAL_FORMAT, json: JSON_FORMAT, plan: PLAN_FORMAT },
  };
}

export function versionText(d = versionDocument()): string {
  const commit = d.build.commit === null ? '' : `, commit ${d.build.commit}`;
  const cache = d.build.codeCache === 'none' ? '' : `, code cache ${d.build.codeCache}`;
  return [
    `${d.program} ${d.version}`,
    `  build    ${d.build.kind}${commit}${cache}`,
    `  Node.js  ${d.node}`,
    `  formats  record ${d.formats.record}, --json ${d.formats.json}, saved plan ${d.formats.plan}`,
    '',
  ].join('\n');
}
