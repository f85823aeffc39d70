/** Percentile of a sample (nearest rank), in the sample's unit. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export async function timed<T>(action: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await action();
  return { ms: performance.now() - started, result };
}

/** Runs `total` calls of `action` with at most `concurrency` in flight; returns each call's duration in ms. */
export async function runConcurrently(total: number, concurrency: number, action: (index: number) => Promise<unknown>): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        durations.push((await timed(() => action(index))).ms);
      }
    }),
  );
  return durations;
}

/**
 * Steady-state rate (calls per second) of `total` calls with `concurrency` in flight: counted between the
 * `concurrency`-th completion and the `concurrency`-th from last, while every slot is busy, so neither the ramp-up
 * nor the last calls draining (when fewer than `concurrency` run and cores idle) enters the figure.
 */
export async function steadyRate(total: number, concurrency: number, action: (index: number) => Promise<unknown>): Promise<number> {
  if (total < 3 * concurrency) throw new Error(`a steady rate needs at least ${3 * concurrency} calls, got ${total}`);
  const completions: number[] = [];
  await runConcurrently(total, concurrency, async (index) => {
    await action(index);
    completions.push(performance.now());
  });
  const [from, to] = [completions[concurrency - 1]!, completions[total - concurrency - 1]!];
  return (total - 2 * concurrency) / ((to - from) / 1000);
}
