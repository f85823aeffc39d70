/**
 * `work` over every item with at most `limit` running at once, results in the items' order. For I/O-bound fan-outs
 * (webhook deliveries): all at once would open unbounded sockets; one at a time would add the latencies up.
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
