// Saved plans (DECL-05, issue #23), as Terraform's `plan -out` / `apply PLAN`: `install …
// --plan-out FILE` writes the plan an operator (or a change review) reads, and `oac-node apply
// FILE` applies it only if planning again gives exactly the same plan from exactly the same
// inputs. What the plan was computed from is kept as digests, part by part: the journal, each
// resource's desired value and what its probe found, Core's configuration, the options and the
// installer itself; so a refusal can name what moved. The file holds no token and no secret:
// the proxy settings' credentials and the env file's content enter only through digests
// (SHA-256 over them mixed with the rest, root-only 0600 file).
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { JournalData } from '../../records/journal.ts';
import { canonicalJson } from '../canonical-json.ts';
import { ENGINE_EVENTS, type EngineEvent } from '../core/events.ts';
import type { Plan } from './root-plan.ts';
import type { RemovalPlan } from './remove.ts';
import type { Resource } from '../resources/resources.ts';
import { kindOf } from './kinds.ts';
import { ACTION } from '../core/step.ts';
import { EXIT, type OacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import type { NodeConfiguration } from '../net/core-schemas.ts';

export const PLAN_FORMAT = 1;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const text = z.string().max(4000);
const planOptions = z
  .object({
    core_url: z.string().url(),
    installation_id: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    core_pin: z.string().nullable(),
    checkpoint_root: z.string().startsWith('/').nullable(),
    /** UPG-01: the plan puts an older program in place of a newer one, as asked. */
    allow_downgrade: z.literal(true).optional(),
    /** OFFLINE-01: the bundle the release comes from (its absolute path) and the SHA-256 of its
     *  manifest the command named: `apply` opens it again and checks it against that digest. */
    bundle: z
      .object({ path: z.string().startsWith('/').max(4096), manifest_sha256: hex64 })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();
export type PlanOptions = z.infer<typeof planOptions>;

const shownStep = z.string().max(80);
/** A step of the plan as `apply` compares it: its action's kind and line (src/core/step.ts). */
const step = z.strictObject({
  step: shownStep,
  action: ACTION.pick({ kind: true }).extend({ detail: text }),
});

/** What a dry run printed: replayed by `show-plan` through the same renderer. The engine's own
 *  event shapes (src/core/events.ts), bounded in length. */
const shownEvent = z.discriminatedUnion('type', [
  ENGINE_EVENTS['step-start'].extend({ step: shownStep, title: text }),
  ENGINE_EVENTS['step-plan'].extend({
    step: shownStep,
    action: ACTION.extend({ detail: text, why: text.optional() }),
  }),
  ENGINE_EVENTS.note.extend({ step: shownStep, message: text }),
]);

const planBase = {
  format: z.literal(PLAN_FORMAT),
  created_at: z.string(),
  /** Each step's action, in order: what `apply` does. */
  steps: z.array(step).max(500),
  /** Whether applying it changes the host. */
  changed: z.boolean(),
  /** The digests of what the plan was computed from, part by part. */
  fingerprint: z.record(z.string().max(120), hex64),
  events: z.array(shownEvent).max(2000),
};

export const savedPlanSchema = z.discriminatedUnion('command', [
  z
    .object({
      ...planBase,
      command: z.literal('install'),
      options: planOptions,
      /** Core's provider (the summary's notes depend on it). */
      provider: z.enum(['docker', 'microsandbox']).optional(),
    })
    .strict(),
  z
    .object({
      ...planBase,
      command: z.literal('uninstall'),
      options: z
        .object({ installation_id: z.string().min(1).max(64), force: z.boolean() })
        .strict(),
      /** What the uninstall keeps, as its summary lists it. */
      kept: z.array(text).max(200),
    })
    .strict(),
]);
export type SavedPlan = z.infer<typeof savedPlanSchema>;
export type SavedInstallPlan = Extract<SavedPlan, { command: 'install' }>;
export type SavedUninstallPlan = Extract<SavedPlan, { command: 'uninstall' }>;

export interface FingerprintInputs {
  journal: JournalData;
  configuration: NodeConfiguration | undefined;
  /** The release manifest the node half installs from. */
  manifest: unknown;
  options: PlanOptions;
  /** The proxy variables of the run (credentials included): only their digest is kept. */
  proxyEnv: Record<string, string>;
  installerSha256: string;
}

/** What `--plan-out` saves and `apply` compares, for every command: the steps, and the digests
 *  of what the plan was made from (src/installation/plan-for.ts `madePlan`). */
export interface MadePlan {
  steps: SavedPlan['steps'];
  fingerprint: Record<string, string>;
}

/** The digests of an install plan's inputs: `journal`, `core`, `release`, `options`, `proxy`,
 *  `installer` (each probe's is the plan's own: `probeDigests`). */
export function fingerprintOf(inputs: FingerprintInputs): Record<string, string> {
  // The journal's content, not its times: a host without one yet gets a new one (stamped now)
  // in every run; any change of what it records shows in the rest.
  const { created_at: _created, updated_at: _updated, ...journal } = inputs.journal;
  const parts: Record<string, string> = {
    journal: digest(journal),
    core: digest(inputs.configuration ?? null),
    release: digest(inputs.manifest ?? null),
    options: digest(inputs.options),
    proxy: digest(withoutPasswords(inputs.proxyEnv)),
    installer: inputs.installerSha256,
  };
  return parts;
}

/** One digest per step (`resource:<step>`): what a removal's probe found; a wanted resource's
 *  desired value and what its probe found. A secret's digest is never among them. */
export function probeDigests(
  removal: RemovalPlan,
  changes: Plan,
  removalName: (key: string) => string = (key) => key,
): Record<string, string> {
  const seen = (s: { resource: Resource; actual: unknown }) =>
    isSecret(s.resource) ? withoutDigest(s.actual ?? null) : (s.actual ?? null);
  const parts: Record<string, string> = {};
  for (const s of removal.steps) parts[`resource:${removalName(s.resource.key)}`] = digest(seen(s));
  for (const s of changes.steps)
    parts[`resource:${s.resource.key}`] = digest({
      desired: comparable(s.resource),
      actual: seen(s),
    });
  return parts;
}

/** The proxy variables with each URL's password left out: not even a digest of a credential is
 *  in a plan file a review may copy elsewhere (a digest of a short password can be guessed
 *  offline). A password changed between plan and apply is therefore not seen (the docs say so). */
function withoutPasswords(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => {
      try {
        const url = new URL(value);
        if (url.password !== '') url.password = 'password';
        return [name, url.href];
      } catch {
        return [name, value]; // not a URL (NO_PROXY): no credential
      }
    }),
  );
}

function isSecret(r: Resource): boolean {
  return kindOf(r).secret(r);
}

/** The probe of a file that holds a secret, without its digest (an old env file's is a plain
 *  SHA-256 of its content); whether it matches what is wanted is in the step's action. */
function withoutDigest(actual: unknown): unknown {
  if (actual === null || typeof actual !== 'object') return actual;
  const { sha256: _sha256, ...rest } = actual as Record<string, unknown>;
  return rest;
}

/** A desired value as plans compare it: without what differs in every run of the same inputs
 *  (each kind says what: src/resources/kind.ts). */
function comparable(r: Resource): Resource {
  return kindOf(r).comparable(r);
}

/** One digest for the whole plan (the journal records the last one applied). */
export function planDigest(fingerprint: Record<string, string>): string {
  return digest(fingerprint);
}

/** The steps as a saved plan keeps them: the removals, then the wanted resources'. */
export function planStepsOf(
  removal: RemovalPlan,
  changes: Plan,
  removalName: (key: string) => string = (key) => key,
): SavedPlan['steps'] {
  const removals = removal.steps.map((s) => ({
    step: removalName(s.resource.key),
    action: { kind: s.action.kind, detail: s.action.detail },
  }));
  return [...removals, ...stepsOf(changes)];
}

function stepsOf(plan: Plan): SavedPlan['steps'] {
  return plan.steps.flatMap((s) => [
    { step: s.resource.key, action: { kind: s.action.kind, detail: s.action.detail } },
    // The node half's steps, as the dry run shows them (`node:<step>`): each is compared too.
    ...(s.action.parts ?? []).map((p) => ({
      step: `${s.resource.key}:${p.step}`,
      action: { kind: p.action.kind, detail: p.action.detail },
    })),
  ]);
}

/** The events a dry run shows, as the saved plan keeps them. */
export function shownEvents(events: EngineEvent[]): SavedPlan['events'] {
  return events.flatMap((e) => {
    const parsed = shownEvent.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
}

/** `apply`: the plan made now must be the saved one, from the same inputs; otherwise nothing
 *  changes and the line names the first thing that moved. */
export function checkSavedPlan(
  saved: SavedPlan,
  now: { steps: SavedPlan['steps']; fingerprint: Record<string, string> },
  lastApplied: string | null,
): void {
  if (lastApplied === planDigest(saved.fingerprint)) throw stale('this plan was applied already');
  const moved = movedPart(saved.fingerprint, now.fingerprint);
  if (moved !== undefined) throw stale(moved);
  const step = saved.steps.find((s, i) => canonicalJson(s) !== canonicalJson(now.steps[i] ?? null));
  if (step !== undefined || saved.steps.length !== now.steps.length)
    throw stale(`its step ${step?.step ?? '(count)'} differs`);
}

function stale(what: string): OacError {
  return oacError('plan_stale', { what }, { exitCode: EXIT.planStale });
}

function movedPart(saved: Record<string, string>, now: Record<string, string>): string | undefined {
  const names = [...new Set([...Object.keys(saved), ...Object.keys(now)])];
  const moved = names.find((name) => saved[name] !== now[name]);
  if (moved === undefined) return undefined;
  if (moved.startsWith('resource:'))
    return `${moved.slice('resource:'.length)} changed on the host`;
  const words: Record<string, string> = {
    journal: "the installation's record changed",
    core: "Core's configuration changed",
    release: 'the release to install changed',
    core_answer: "Core's answer about the node changed",
    kept: 'what uninstall keeps changed',
    options: 'the options differ',
    proxy: 'the proxy settings of this run differ',
    installer: 'this installer is not the one that made the plan',
  };
  return words[moved] ?? `${moved} changed`;
}

/** The SHA-256 of a value's canonical JSON (BigInt stamps as decimal strings). */
export function digestOf(value: unknown): string {
  return digest(value);
}

function digest(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(jsonSafe(value)))
    .digest('hex');
}

/** BigInt stamps (the digest index) as decimal strings; everything else as JSON has it. */
function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  );
}
