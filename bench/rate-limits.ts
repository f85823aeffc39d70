import { randomUUID } from 'node:crypto';
import { countRequest } from '../src/api/middleware/rate-limit.ts';
import { openRateLimitStore } from '../src/api/rate-limits/rate-limit-store.ts';
import { RateLimiter } from '../src/api/rate-limits/rate-limiter.ts';
import type { Caller } from '../src/domain/caller.ts';
import { createLogger } from '../src/logger.ts';
import type { BenchStack } from './bench-stack.ts';
import { percentile, timed } from './stats.ts';
import { alone, compared, heading, type Row } from './table.ts';

// What counting the limits costs per request in the shared store (PostgreSQL, what every api process does) next to
// counting them in this process's memory (what the api did before the budgets were shared, and what it falls back
// to), with the settings of the stack's api: one budget (one upsert) and a request's two (its key's, then its
// workspace's), sequentially and in turns, over a hundred callers so that rows are both new and updated. GET
// /projects, limits and all, shows what share of a cheap request they are.

const callers = 100;
const samples = 2_000;
const warmUpRounds = 300;

export async function benchRateLimits(stack: BenchStack): Promise<Row[]> {
  const store = openRateLimitStore(stack.config.database.url, createLogger({ level: 'silent', name: 'bench' }));
  try {
    const shared = new RateLimiter(stack.config.rateLimit, { store });
    const memory = new RateLimiter(stack.config.rateLimit, 'memory');
    const who: Caller[] = Array.from({ length: callers }, () => ({ apiKeyId: randomUUID(), workspaceId: randomUUID(), plan: 'growth', scope: 'full' }));
    const cases: Record<string, (caller: Caller) => Promise<unknown>> = {
      budgetShared: (caller) => shared.perKey.take(caller.apiKeyId),
      budgetMemory: (caller) => memory.perKey.take(caller.apiKeyId),
      requestShared: (caller) => countRequest(shared, caller),
      requestMemory: (caller) => countRequest(memory, caller),
    };
    const runs = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
    for (let round = 0; round < warmUpRounds; round += 1) for (const count of Object.values(cases)) await count(who[round % callers]!);
    for (let sample = 0; sample < samples; sample += 1) {
      for (const [name, count] of Object.entries(cases)) runs.get(name)!.push((await timed(() => count(who[sample % callers]!))).ms);
    }
    const getProjects: number[] = [];
    for (let sample = 0; sample < 100; sample += 1) await stack.call('GET', '/projects');
    for (let sample = 0; sample < 200; sample += 1) getProjects.push((await timed(() => stack.call('GET', '/projects'))).ms);

    const p50 = (name: string) => percentile(runs.get(name)!, 50) * 1000;
    const p95 = (name: string) => percentile(runs.get(name)!, 95) * 1000;
    const get = percentile(getProjects, 50) * 1000;
    return [
      heading(`rate limits, µs per call, ${samples} sequential samples each in turns`),
      compared('one budget in PostgreSQL, p50 µs', p50('budgetShared'), '', { value: p50('budgetMemory'), name: 'in memory' }),
      compared('one budget in PostgreSQL, p95 µs', p95('budgetShared'), '', { value: p95('budgetMemory'), name: 'in memory' }),
      compared("a request's limits (key + workspace) in PostgreSQL, p50 µs", p50('requestShared'), '', { value: p50('requestMemory'), name: 'in memory' }),
      compared("a request's limits (key + workspace) in PostgreSQL, p95 µs", p95('requestShared'), '', { value: p95('requestMemory'), name: 'in memory' }),
      alone(
        "a request's limits in PostgreSQL, share of a GET /projects p50",
        `${((100 * p50('requestShared')) / get).toFixed(1)} %`,
        '',
        undefined,
        `(${p50('requestShared').toFixed(0)} of ${get.toFixed(0)} µs)`,
      ),
    ];
  } finally {
    await store.close();
  }
}
