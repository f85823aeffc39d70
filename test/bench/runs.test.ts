import { describe, expect, it } from 'vitest';
import { exitCodes, reportExitStatus } from '../../bench/exit-status.ts';
import { benchArguments, summarizeRuns } from '../../bench/runs.ts';
import { alone, atMost, compared, heading, none, ratioAtMost, type Row } from '../../bench/table.ts';

// The bench's `--runs N` and exit status, on rows as its sections make them.

const run = (pageMs: number, floorMs: number, lost: number): Row[] => [
  heading('posts'),
  compared('GET /posts page 1', pageMs, 'ms', { value: floorMs, name: 'floor' }, ratioAtMost(1.5)),
  alone('lost', lost, '', none()),
  alone('CPU', `${pageMs} ms: main thread`, ''),
];

describe('benchArguments', () => {
  it('when --runs comes before, after or among the sections, then it is read and the rest are sections', () => {
    expect(benchArguments(['--runs', '5', 'generate'])).toEqual({ runs: 5, sections: ['generate'] });
    expect(benchArguments(['posts', '--runs=2', 'generate'])).toEqual({ runs: 2, sections: ['posts', 'generate'] });
    expect(benchArguments([])).toEqual({ runs: 1, sections: [] });
  });

  it('when --runs is not a positive whole number or an option is unknown, then it refuses', () => {
    for (const argv of [['--runs'], ['--runs', '0'], ['--runs', '1.5'], ['--run', '2']]) expect(() => benchArguments(argv)).toThrow();
  });
});

describe('summarizeRuns', () => {
  it('when there is one run, then its rows are the table', () => {
    const rows = run(10, 10, 0);
    expect(summarizeRuns([rows])).toBe(rows);
  });

  it('when there are several runs, then each figure is their median with the spread, and the target is judged on the median ratio', () => {
    const [, page] = summarizeRuns([run(10, 10, 0), run(30, 10, 0), run(12, 10, 0)]);
    expect(page).toMatchObject({ figure: '12.0 ms (10.0–30.0)', floor: '10.0 ms (floor)', ratio: '1.20× (1.00–3.00)', met: 'yes' });
  });

  it('when the median misses a target that one run met, then it is missed', () => {
    const [, page] = summarizeRuns([run(10, 10, 0), run(20, 10, 0), run(20, 10, 0), run(20, 10, 0)]);
    expect(page).toMatchObject({ ratio: '2.00× (1.00–2.00)', met: 'NO' });
  });

  it('when a check failed in one run of several, then it fails and says in how many', () => {
    const [, , lost] = summarizeRuns([run(10, 10, 0), run(10, 10, 2), run(10, 10, 0)]);
    expect(lost).toMatchObject({ figure: '2 (failed in 1 of 3 runs)', met: 'NO', check: true });
  });

  it('when a text figure differs between runs, then the first is shown and marked', () => {
    const [, , , cpu] = summarizeRuns([run(10, 10, 0), run(11, 10, 0)]);
    expect(cpu!.figure).toBe('10 ms: main thread (run 1 of 2; the runs differ)');
  });

  it('when the last run stopped half-way, then its rows count where they exist', () => {
    const rows = summarizeRuns([run(10, 10, 0), run(20, 10, 0).slice(0, 2)]);
    expect(rows.map((row) => row.benchmark)).toEqual(['— posts', 'GET /posts page 1', 'lost', 'CPU']);
    expect(rows[1]!.figure).toBe('15.0 ms (10.0–20.0)');
  });
});

describe('reportExitStatus', () => {
  const print = () => undefined;

  it('when every check held and every target was met, then the bench exits 0', () => {
    expect(reportExitStatus(run(10, 10, 0), print)).toBe(exitCodes.ok);
  });

  it('when a target missed, then it exits 2 and names the target', () => {
    const lines: string[] = [];
    expect(reportExitStatus(run(20, 10, 0), (line) => lines.push(line))).toBe(exitCodes.targetMissed);
    expect(lines).toEqual(['target missed: GET /posts page 1: ratio 2.00×, target ratio ≤ 1.5']);
  });

  it('when a check failed, then it exits 1 whatever the targets, and names the check', () => {
    const lines: string[] = [];
    const rows = [...run(20, 10, 3), alone('deliveries per event', 2, '', atMost(1, ''))];
    expect(reportExitStatus(rows, (line) => lines.push(line))).toBe(exitCodes.checkFailed);
    expect(lines[0]).toBe('check failed: lost: 3 (expected 0)');
  });
});
