import type { BenchStack } from './bench-stack.ts';
import { format, type Row } from './table.ts';

// `--runs N`: the chosen sections run N times on one stack, and the table shows each figure's median over the runs
// with their spread (min–max). A target holds when the median meets it (a ratio's median is taken over the runs'
// own ratios, each of a figure and its floor measured together); a correctness check holds only when it held in
// every run.

export type BenchArguments = { runs: number; sections: string[] };

/** `[--runs N] [section …]`, in any order. */
export function benchArguments(argv: string[]): BenchArguments {
  const sections: string[] = [];
  let runs = 1;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const inline = /^--runs=(.*)$/.exec(argument);
    if (argument === '--runs' || inline) {
      const value = inline ? inline[1]! : argv[(index += 1)];
      runs = Number(value);
      if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a positive whole number, got "${value ?? ''}"`);
    } else if (argument.startsWith('-')) {
      throw new Error(`unknown option ${argument}; the bench takes [--runs N] [section …]`);
    } else {
      sections.push(argument);
    }
  }
  return { runs, sections };
}

export type Section = (stack: BenchStack) => Promise<Row[]>;

/**
 * Runs each section in turn, `runs` times over, adding each run's rows to `perRun` as they come, so that what was
 * measured before a section failed can still be shown.
 */
export async function runSections(sections: Array<[string, Section]>, stack: BenchStack, runs: number, perRun: Row[][]): Promise<void> {
  for (let run = 1; run <= runs; run += 1) {
    const rows: Row[] = [];
    perRun.push(rows);
    for (const [name, section] of sections) {
      const started = performance.now();
      const label = runs > 1 ? `${name} (run ${run} of ${runs})` : name;
      console.error(`bench: ${label}…`);
      rows.push(...(await section(stack)));
      console.error(`bench: ${label} took ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
}

/** One table from the rows of every run (the last may be partial, when a section failed). */
export function summarizeRuns(perRun: Row[][]): Row[] {
  if (perRun.length <= 1) return perRun[0] ?? [];
  const keyed = perRun.map(keyRows);
  const longest = keyed.reduce((most, rows) => (rows.size > most.size ? rows : most));
  return [...longest.keys()].map((key) => merged(keyed.flatMap((rows) => rows.get(key) ?? [])));
}

/** Rows by name, a name's second row (a heading repeated) by name and count. */
function keyRows(rows: Row[]): Map<string, Row> {
  const seen = new Map<string, number>();
  return new Map(
    rows.map((row) => {
      const count = (seen.get(row.benchmark) ?? 0) + 1;
      seen.set(row.benchmark, count);
      return [`${row.benchmark}#${count}`, row];
    }),
  );
}

function merged(rows: Row[]): Row {
  const first = rows[0]!;
  if (rows.length === 1) return first;
  if (first.check) {
    const failed = rows.filter((row) => row.met === 'NO');
    if (failed.length === 0) return { ...first, figure: same(rows.map((row) => row.figure)) };
    return { ...failed[0]!, figure: `${failed[0]!.figure} (failed in ${failed.length} of ${rows.length} runs)` };
  }
  const measured = rows.flatMap((row) => row.measured ?? []);
  if (measured.length !== rows.length) return { ...first, figure: same(rows.map((row) => row.figure)) };
  const { unit, target } = measured[0]!;
  const figures = measured.map((each) => each.figure);
  const figure = median(figures);
  const spread = (values: number[], show: (value: number) => string) => `${show(Math.min(...values))}–${show(Math.max(...values))}`;
  const details = new Set(measured.map((each) => each.detail ?? ''));
  const detail = details.size === 1 ? [...details][0]! : '';
  const row: Row = {
    benchmark: first.benchmark,
    figure: `${format(figure, unit)} (${spread(figures, (value) => format(value, unit).replace(/ (ms|\/s)$/, ''))})${detail ? ` ${detail}` : ''}`,
    floor: '',
    ratio: '',
    target: '',
    met: '',
    measured: { ...measured[0]!, figure },
  };
  let ratio = Number.NaN;
  const floors = measured.flatMap((each) => each.floor ?? []);
  if (floors.length === measured.length) {
    const ratios = measured.map((each) => each.figure / each.floor!.value);
    ratio = median(ratios);
    row.floor = `${format(median(floors.map((floor) => floor.value)), unit)} (${floors[0]!.name})`;
    row.ratio = Number.isFinite(ratio) ? `${ratio.toFixed(2)}× (${spread(ratios, (value) => value.toFixed(2))})` : 'n/a';
  }
  const met = target?.(figure, ratio);
  if (met) {
    row.target = met.text;
    row.met = met.met ? 'yes' : 'NO';
  }
  return row;
}

/** The runs' text when they agree; the first run's, marked, when they do not (a text has no median). */
function same(texts: string[]): string {
  return new Set(texts).size === 1 ? texts[0]! : `${texts[0]!} (run 1 of ${texts.length}; the runs differ)`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
