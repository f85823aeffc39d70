// The one table `npm run bench` prints. Every figure stands next to its floor measured in the same run on the same
// stack; `ratio` is always figure ÷ floor in the figure's own unit (a time: lower is better; a rate: higher is
// better), and a target on it is written in the same direction.

export type Unit = 'ms' | '/s' | '';

/**
 * A target on the figure itself or on the ratio. A `check` is a correctness check (nothing lost, duplicated, badly
 * signed or wrong) rather than a performance target: see bench/exit-status.ts for what each means for the exit
 * status.
 */
export type Target = (figure: number, ratio: number) => { text: string; met: boolean; check?: boolean };

export type Row = {
  benchmark: string;
  figure: string;
  floor: string;
  ratio: string;
  target: string;
  met: string;
  /** Set when the target is a correctness check. */
  check?: boolean;
  /** The numbers behind a measured row, from which bench/runs.ts takes medians over runs. */
  measured?: Measured;
};

type Measured = { figure: number; unit: Unit; floor?: { value: number; name: string }; target?: Target; detail?: string };

export function format(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = unit === '' ? (Number.isInteger(value) ? 0 : 1) : value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)}${unit === '' ? '' : ` ${unit === 'ms' ? 'ms' : '/s'}`}`;
}

export function ratioAtLeast(minimum: number, note = ''): Target {
  return (_figure, ratio) => ({ text: `ratio ≥ ${minimum}${note}`, met: ratio >= minimum });
}
export function ratioAtMost(maximum: number, note = ''): Target {
  return (_figure, ratio) => ({ text: `ratio ≤ ${maximum}${note}`, met: ratio <= maximum });
}
export function atLeast(minimum: number, unit: Unit): Target {
  return (figure) => ({ text: `≥ ${format(minimum, unit)}`, met: figure >= minimum });
}
export function atMost(maximum: number, unit: Unit): Target {
  return (figure) => ({ text: `≤ ${format(maximum, unit)}`, met: figure <= maximum });
}
export function below(limit: number, unit: Unit): Target {
  return (figure) => ({ text: `< ${format(limit, unit)}`, met: figure < limit });
}

/** A correctness check on a count of what went wrong: it holds at zero. */
export function none(): Target {
  return (figure) => ({ text: '0 (check)', met: figure === 0, check: true });
}

/** A figure next to its floor. */
export function compared(benchmark: string, figure: number, unit: Unit, floor: { value: number; name: string }, target?: Target): Row {
  const ratio = figure / floor.value;
  const met = target?.(figure, ratio);
  return {
    benchmark,
    figure: format(figure, unit),
    floor: `${format(floor.value, unit)} (${floor.name})`,
    ratio: Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a',
    target: met?.text ?? '',
    met: met ? (met.met ? 'yes' : 'NO') : '',
    ...(met?.check ? { check: true } : {}),
    measured: { figure, unit, floor, ...(target ? { target } : {}) },
  };
}

/**
 * A figure with no floor of its own (a floor itself, a count, or a target in absolute terms); `detail` follows the
 * figure (what it is made of).
 */
export function alone(benchmark: string, figure: number | string, unit: Unit, target?: Target, detail = ''): Row {
  const met = typeof figure === 'number' ? target?.(figure, Number.NaN) : undefined;
  return {
    benchmark,
    figure: `${typeof figure === 'number' ? format(figure, unit) : figure}${detail ? ` ${detail}` : ''}`,
    floor: '',
    ratio: '',
    target: met?.text ?? '',
    met: met ? (met.met ? 'yes' : 'NO') : '',
    ...(met?.check ? { check: true } : {}),
    ...(typeof figure === 'number' ? { measured: { figure, unit, ...(target ? { target } : {}), ...(detail ? { detail } : {}) } } : {}),
  };
}

/** A section heading inside the table. */
export function heading(title: string): Row {
  return { benchmark: `— ${title}`, figure: '', floor: '', ratio: '', target: '', met: '' };
}

export function printTable(rows: Row[]): void {
  const columns: Array<['benchmark' | 'figure' | 'floor' | 'ratio' | 'target' | 'met', string]> = [
    ['benchmark', 'benchmark'],
    ['figure', 'figure'],
    ['floor', 'floor (same run)'],
    ['ratio', 'ratio'],
    ['target', 'target'],
    ['met', 'met'],
  ];
  const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map((row) => row[key].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => cell.padEnd(widths[index]!))
      .join(' │ ')
      .trimEnd();
  process.stdout.write(
    [
      line(columns.map(([, title]) => title)),
      widths.map((width) => '─'.repeat(width)).join('─┼─'),
      ...rows.map((row) => line(columns.map(([key]) => row[key]))),
    ].join('\n') + '\n',
  );
}
