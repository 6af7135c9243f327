// One row of `npm run bench` (issue #13): a figure, what it is compared with in the same run,
// the ratio and the target. Each bench returns its rows; bench/run.ts prints them as one table
// and writes them as JSON. A bench reports, it never fails.
import { performance } from 'node:perf_hooks';

export interface Figure {
  /** What was measured, as the table shows it. */
  name: string;
  /** Its value in `unit`. */
  value: number;
  unit: 's' | 'ms' | 'MB' | 'MiB' | 'bytes';
  /** What an operator would compare it with, measured in the same run. */
  compared?: { name: string; value: number };
  /** The target, and whether this run met it. */
  target?: { text: string; met: boolean };
  /** Anything the reader needs beside the number (a per-phase breakdown, a reason). */
  note?: string;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Times named parts over rounds: `timed(name, fn)` runs fn and keeps its wall time under
 *  name; `print()` writes each part's median, in the order first timed. */
export function partTimer(): {
  timed<T>(name: string, fn: () => Promise<T>): Promise<T>;
  print(): void;
} {
  const figures: Record<string, number[]> = {};
  return {
    async timed(name, fn) {
      const start = performance.now();
      try {
        return await fn();
      } finally {
        (figures[name] ??= []).push(performance.now() - start);
      }
    },
    print() {
      const width = Math.max(...Object.keys(figures).map((n) => n.length)) + 2;
      for (const [name, xs] of Object.entries(figures))
        console.log(
          `${name.padEnd(width)} ${(median(xs) / 1000).toFixed(2)} s  (${xs.length} runs)`,
        );
    },
  };
}

export const ratioOf = (f: Figure): number | undefined =>
  f.compared === undefined ? undefined : f.value / f.compared.value;

const show = (value: number, unit: Figure['unit']): string =>
  unit === 's'
    ? `${value.toFixed(2)} s`
    : unit === 'bytes'
      ? `${value.toFixed(0)} bytes`
      : `${value.toFixed(unit === 'ms' ? 0 : 1)} ${unit}`;

/** The table: figure, compared with, ratio, target. */
export function tableOf(figures: Figure[]): string {
  const rows = figures.map((f) => {
    const ratio = ratioOf(f);
    return [
      f.name,
      show(f.value, f.unit),
      f.compared === undefined ? '—' : `${f.compared.name}: ${show(f.compared.value, f.unit)}`,
      ratio === undefined ? '—' : `${ratio.toFixed(2)}×`,
      f.target === undefined ? '—' : `${f.target.text}: ${f.target.met ? 'met' : 'NOT met'}`,
    ];
  });
  const head = ['figure', 'now', 'compared with', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const notes = figures.flatMap((f) => (f.note === undefined ? [] : [`- ${f.name}: ${f.note}`]));
  return [
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...(notes.length === 0 ? [] : ['', ...notes]),
  ].join('\n');
}

/** True when this module is the script node was started with (a bench run on its own). */
export function isMain(url: string): boolean {
  const script = process.argv[1];
  return script !== undefined && url === new URL(`file://${script}`).href;
}
