import type { Row } from './table.ts';

// The bench's exit status: 1 when a correctness check failed (something lost, duplicated, badly signed, a wrong or
// missing page or row, an image that is not one of the size asked for: the service is wrong, whatever the machine),
// 2 when every check held but a performance target missed (the service, or this machine at that moment, was slower
// than promised: judge it on the median of `--runs 5` before believing it), 0 when all held. A section that throws
// exits 1 too, after the table of what was measured.

export const exitCodes = { ok: 0, checkFailed: 1, targetMissed: 2 } as const;

/** Prints what failed and what missed, one line each, and returns the exit code they make. */
export function reportExitStatus(rows: Row[], print: (line: string) => void = console.log): number {
  const failed = rows.filter((row) => row.met === 'NO' && row.check);
  const missed = rows.filter((row) => row.met === 'NO' && !row.check);
  for (const row of failed) print(`check failed: ${row.benchmark}: ${row.figure} (expected ${row.target.replace(' (check)', '')})`);
  for (const row of missed)
    print(`target missed: ${row.benchmark}: ${row.target.startsWith('ratio') ? `ratio ${row.ratio}` : row.figure}, target ${row.target}`);
  if (failed.length > 0) return exitCodes.checkFailed;
  if (missed.length > 0) return exitCodes.targetMissed;
  print('every check held and every target was met');
  return exitCodes.ok;
}
