// Steps never print: they emit events, and src/ui renders them as listr2 phases, plain lines or
// NDJSON (STYLE.md point 2). Every event passes the redactor before it is rendered.
import type { Action, StepResult } from './step.ts';

export type EngineEvent =
  /** `phase`: the group a terminal shows it under (src/engine/resources.ts). */
  | { type: 'step-start'; step: string; title: string; phase?: string }
  | { type: 'step-plan'; step: string; action: Action }
  | { type: 'step-done'; step: string; result: StepResult }
  | { type: 'step-failed'; step: string; code: string; message: string }
  | { type: 'progress'; step: string; file: string; received: number; total: number }
  | { type: 'note'; step: string; message: string };

export type Emit = (event: EngineEvent) => void;
