// A piece of work started before anyone asks for it (issue #41: the node half's dry run, started
// in preflight), with the key of what it was started for. Whoever asks later takes its answer
// only for the same key, and otherwise stops it; work nobody took is stopped when its run ends
// (OPS-03: no process of a run outlives it). Its failure is kept as a value until it is taken,
// never an unhandled rejection.
import { linkedAbort } from '../net/linked-abort.ts';

export interface EarlyAnswer<T> {
  /** What it was started for. */
  readonly key: string;
  /** Its answer (its failure, if it failed). */
  take(): Promise<T>;
  /** Stops the work unless it already ended, and waits until it did. */
  cancel(): Promise<void>;
}

type Settled<T> = { value: T } | { error: unknown };

export function startEarly<T>(
  key: string,
  runSignal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): EarlyAnswer<T> {
  const { controller, unlink } = linkedAbort(runSignal);
  const settled: Promise<Settled<T>> = new Promise<T>((resolve) => resolve(work(controller.signal)))
    .then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    .finally(unlink);
  return {
    key,
    take: () => settled.then((s) => ('value' in s ? s.value : Promise.reject(s.error))),
    cancel: async () => {
      controller.abort(); // not needed: an AbortError nobody reads
      await settled;
    },
  };
}

/** The early answer when it was started for `key` (its failure, if it failed); otherwise it is
 *  stopped and waited for, and undefined says the asker must do the work itself. */
export async function takeFor<T>(
  early: EarlyAnswer<T> | undefined,
  key: string,
): Promise<{ value: T } | undefined> {
  if (early === undefined) return undefined;
  if (early.key === key) return { value: await early.take() };
  await early.cancel();
  return undefined;
}
