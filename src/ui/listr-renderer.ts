// On a terminal, the install shows as listr2 phases: one line per step, with a spinner while it
// runs and its outcome word once done (`unchanged` on a rerun), live progress (each file's bytes,
// rate and time left, `Resuming …`; the wait for Core) and the oac-node half's own outcomes as
// the step's output (OPS-01). The engine drives; each listr task just waits for its
// step's events, so the engine and the UI stay separate (docs/architecture.md).
import { Listr, type ListrTaskWrapper } from 'listr2';
import type { EngineEvent } from '../core/events.ts';
import { printable } from './printable.ts';
import { TransferClock, describeWait } from './progress-text.ts';

interface Phase {
  id: string;
  title: string;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  task?: { title: string; output: string };
  /** What arrived before listr started the phase's task (an engine step that did no I/O can
   *  start and finish before listr gets a turn): given to the task when it starts. */
  title?: string;
  output?: string;
  done: boolean;
}

export interface ListrView {
  emit: (event: EngineEvent) => void;
  /** Marks a phase that is not an engine step (preflight) as done, with a title. */
  complete: (id: string, title: string) => void;
  /** Ends the view: a step that never started (an earlier failure) is shown as skipped. */
  finish: (error?: unknown) => Promise<void>;
}

export function listrView(phases: Phase[]): ListrView {
  const pending = new Map<string, Pending>();
  const list = new Listr(
    phases.map((phase) => ({
      title: phase.title,
      task: (_ctx: unknown, task: ListrTaskWrapper<unknown, never, never>) =>
        new Promise<void>((resolve, reject) => {
          const entry: Pending = pending.get(phase.id) ?? { resolve, reject, done: false };
          entry.resolve = resolve;
          entry.reject = reject;
          entry.task = task as unknown as { title: string; output: string };
          if (entry.title !== undefined) entry.task.title = entry.title;
          if (entry.output !== undefined) entry.task.output = entry.output;
          pending.set(phase.id, entry);
          if (entry.done) resolve();
        }),
    })),
    // Colour follows NO_COLOR and --no-color (listr2's colorette reads both). listr2's own
    // SIGINT handler would exit at once with 127; the command stops at a step boundary instead
    // (OPS-03, src/cli/interrupt.ts).
    { concurrent: false, exitOnError: true, registerSignalListeners: false },
  );
  const running = list.run().catch(() => undefined);
  const entryFor = (id: string): Pending => {
    let entry = pending.get(id);
    if (entry === undefined) {
      entry = { resolve: () => undefined, reject: () => undefined, done: false };
      pending.set(id, entry);
    }
    return entry;
  };
  const known = new Set(phases.map((p) => p.id));
  const clock = new TransferClock();
  // Engine steps name their phase (a resource's group, src/resources/resources.ts); a phase is
  // done when the next one starts, or at the end.
  const phaseOfStep = new Map<string, string>();
  let current = phases[0]?.id;
  const resolve = (id: string | undefined): void => {
    if (id === undefined) return;
    const entry = entryFor(id);
    entry.done = true;
    entry.resolve();
  };
  const emit = (event: EngineEvent): void => {
    if (event.type === 'step-start') {
      const phase = event.phase ?? event.step;
      if (known.has(phase)) {
        phaseOfStep.set(event.step, phase);
        if (current !== phase && current !== 'preflight') resolve(current);
        current = phase;
      }
    }
    const own = phaseOfStep.get(event.step);
    const entry = entryFor(own ?? current ?? event.step);
    const say = (text: string) => {
      entry.output = printable(text);
      if (entry.task !== undefined) entry.task.output = entry.output;
    };
    const retitle = (text: string) => {
      entry.title = printable(text);
      if (entry.task !== undefined) entry.task.title = entry.title;
    };
    // A step named as its phase (the wait for Core) starts it under the phase's own title, what
    // a step before it in the phase said (an upgrade's settling step) notwithstanding.
    if (event.type === 'step-start' && event.step === own) retitle(event.title);
    if (event.type === 'progress') say(clock.describe(event));
    if (event.type === 'waiting') say(describeWait(event));
    if (event.type === 'note') say(event.message);
    if (event.type === 'step-done' && own === undefined)
      say(`${event.result.outcome} ${event.result.detail}`);
    if (event.type === 'step-done' && own !== undefined)
      retitle(`${event.result.outcome.padEnd(9)} ${event.result.detail}`);
    if (event.type === 'step-failed' && own !== undefined)
      entry.reject(new Error(printable(event.message)));
  };
  const finish = async (error?: unknown): Promise<void> => {
    for (const phase of phases) {
      const entry = entryFor(phase.id);
      if (entry.done) continue;
      if (error !== undefined) entry.reject(new Error('stopped'));
      else entry.resolve();
      entry.done = true;
    }
    await running;
  };
  const complete = (id: string, title: string): void => {
    const entry = entryFor(id);
    if (entry.done) return;
    entry.title = printable(title);
    if (entry.task !== undefined) entry.task.title = entry.title;
    entry.done = true;
    entry.resolve();
  };
  return { emit, complete, finish };
}
