// `oac-node diagnose` (issue #40, docs/support.md): one .tar.gz an operator attaches to a ticket.
// Every file is collected on its own (support/collect.ts); what cannot be had is named in the
// manifest with why. Then, before anything is written, the exact secrets this host holds are
// looked for in every file, in every encoding (support/secret-scan.ts): a hit the collector did
// not mask stops the bundle, naming the file and the kind of secret (fail closed). The bundle is
// written 0600, atomically; nothing else on the host changes.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { writeFileAtomic } from '../src/host/files.ts';
import type { Host } from '../src/host/host.ts';
import { BLOCK, fileHeader, paddingOf } from '../src/host/tar-header.ts';
import type { Layout } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';
import { JSON_FORMAT, VERSION } from '../src/version.ts';
import { savedProxyEnv } from '../records/proxy-settings.ts';
import { readNodeIdentity } from '../src/installation/node-state.ts';
import { COLLECTORS, LOGS, type Collected, type Missing } from './collect.ts';
import { findSecrets, maskSecrets, type Secret } from './secret-scan.ts';

export interface Manifest {
  format: number;
  program: 'oac-node';
  version: string;
  created_at: string;
  installation_id: string;
  files: Array<{ name: string; size: number; sha256: string; masked: string[] }>;
  missing: Missing[];
  /** The kinds of secret looked for in every file (never their values). */
  scanned_for: string[];
}

export interface Diagnosis {
  manifest: Manifest;
  /** What looks wrong, first problem first (status's problems, then what could not be had). */
  summary: string[];
  bytes: number;
  sha256: string;
}

/** Collects, checks and writes the bundle to `out`; a secret found stops it before any write. */
export async function diagnose(host: Host, names: Layout, out: string): Promise<Diagnosis> {
  const secrets = await secretsOf(host, names);
  const files: Collected[] = [];
  const missing: Missing[] = [];
  for (const [name, collect] of COLLECTORS) {
    try {
      const found = { name, ...(await collect(host, names)) };
      files.push(LOGS.has(name) ? { ...found, ...maskSecrets(found.data, secrets) } : found);
    } catch (error) {
      missing.push({ name, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  const manifest: Manifest = {
    format: JSON_FORMAT,
    program: 'oac-node',
    version: VERSION,
    created_at: new Date().toISOString(),
    installation_id: names.id,
    files: files.map((f) => ({
      name: f.name,
      size: f.data.length,
      sha256: createHash('sha256').update(f.data).digest('hex'),
      masked: f.masked,
    })),
    missing,
    scanned_for: [...new Set(secrets.map((s) => s.kind))],
  };
  const entries = [
    ...files,
    {
      name: 'MANIFEST.json',
      data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
      masked: [],
    },
  ];
  // Fail closed: a secret where no collector masked it is never written.
  const [hit] = findSecrets(entries, secrets);
  if (hit !== undefined)
    throw oacError('diagnose_secret_found', {
      file: hit.file,
      kind: hit.kind,
      encoding: hit.encoding,
    });
  const archive = gzipSync(tarOf(entries, Math.floor(Date.now() / 1000)));
  await writeFileAtomic(out, archive, 0o600);
  return {
    manifest,
    summary: summaryOf(files, missing),
    bytes: archive.length,
    sha256: createHash('sha256').update(archive).digest('hex'),
  };
}

/** The exact secrets this host holds for the installation: the node's credential, and the
 *  passwords (and users) of the saved proxy settings. */
async function secretsOf(host: Host, names: Layout): Promise<Secret[]> {
  const secrets: Secret[] = [];
  const identity = await readNodeIdentity(host, names).catch(() => undefined);
  if (identity !== undefined)
    secrets.push({ kind: "the node's credential", value: identity.credential });
  const proxy = await savedProxyEnv(host, names).catch(() => ({}) as Record<string, string>);
  for (const [name, value] of Object.entries(proxy)) {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url !== undefined && url.password !== '')
      secrets.push({ kind: `the password in ${name}`, value: decodeURIComponent(url.password) });
  }
  return secrets;
}

/** First problem first: status's own, then what could not be collected. */
function summaryOf(files: Collected[], missing: Missing[]): string[] {
  const status = files.find((f) => f.name === 'status.json');
  const problems = status === undefined ? [] : problemsIn(status.data);
  return [...problems, ...missing.map((m) => `${m.name} not collected: ${m.reason}`)];
}

function problemsIn(data: Buffer): string[] {
  const parsed = JSON.parse(data.toString()) as { problems?: unknown } | null;
  return Array.isArray(parsed?.problems) ? parsed.problems.map(String) : [];
}

/** A ustar archive of the entries (names of ours: no directories, no links). */
function tarOf(entries: ReadonlyArray<{ name: string; data: Buffer }>, mtime: number): Buffer {
  const parts: Buffer[] = [];
  for (const { name, data } of entries)
    parts.push(fileHeader(name, data.length, mtime), data, Buffer.alloc(paddingOf(data.length)));
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
