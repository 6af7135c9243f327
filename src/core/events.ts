// Steps never print: they emit events, and src/ui renders them as listr2 phases, plain lines or
// NDJSON (docs/architecture.md). Every event passes the redactor before it is rendered.
import type { Action, StepResult } from './step.ts';

export type EngineEvent =
  /** `phase`: the group a terminal shows it under (src/resources/resources.ts). */
  | { type: 'step-start'; step: string; title: string; phase?: string }
  | { type: 'step-plan'; step: string; action: Action }
  | { type: 'step-done'; step: string; result: StepResult }
  /** `hint`: what the operator can do (src/messages.ts), carried from the node half too (OPS-02). */
  | { type: 'step-failed'; step: string; code: string; message: string; hint?: string }
  | {
      type: 'progress';
      step: string;
      file: string;
      received: number;
      total: number;
      /** start: from zero; resuming: from `received` (a part an earlier run left, DL-02);
       *  done: verified in place. Without a phase: bytes arrived. */
      phase?: ProgressPhase;
    }
  | { type: 'note'; step: string; message: string }
  /** The wait for Core (ENR-04): seconds waited so far and what Core last said. */
  | { type: 'waiting'; step: string; elapsed: number; said: string };

export type Emit = (event: EngineEvent) => void;

export const PROGRESS_PHASES = ['start', 'resuming', 'restarting', 'done'] as const;
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];
