import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config.ts';
import { Budget } from './budget.ts';
import { rateLimitTable, type RateLimitStore } from './rate-limit-store.ts';

/**
 * Where the budgets are counted: the shared PostgreSQL store, so that any number of api processes enforce one budget
 * (the service), or this process's memory alone (the benchmark's floor).
 */
export type Counting = { store: RateLimitStore } | 'memory';

/**
 * The request limits of the API: per key, per workspace across all its keys (so that minting keys does not multiply
 * the limit), and failed authentications per client address. Fixed windows (rate-limiter-flexible's): a name's
 * window starts with its first count and its count restarts when the window ends.
 */
export class RateLimiter {
  readonly perKey: Budget;
  readonly perWorkspace: Budget;
  readonly authFailures: Budget;

  constructor(settings: Config['rateLimit'], counting: Counting) {
    const budget = (name: string, points: number, clearsExpired = false) =>
      new Budget(
        counting === 'memory'
          ? new RateLimiterMemory({ keyPrefix: name, points, duration: settings.windowSeconds })
          : sharedLimiter(counting.store, name, points, settings.windowSeconds, clearsExpired),
      );
    // One of the three deletes the table's expired rows (they share it); the others need not.
    this.perKey = budget('key', settings.requests, true);
    this.perWorkspace = budget('workspace', settings.workspaceRequests);
    this.authFailures = budget('auth-failures', settings.authFailuresPerAddress);
  }
}

function sharedLimiter(store: RateLimitStore, name: string, points: number, duration: number, clearsExpired: boolean): RateLimiterAbstract {
  return new RateLimiterPostgres({
    storeClient: store.client,
    storeType: 'pool',
    tableName: rateLimitTable,
    // Created by a migration: replicas starting at once would otherwise race to create it.
    tableCreated: true,
    keyPrefix: name,
    points,
    duration,
    // Every 5 minutes, rows whose window ended over an hour ago (the library's schedule, on an unref'd timer): the
    // table holds the names seen in the last hour or so, each replica's sweep one statement.
    clearExpiredByTimeout: clearsExpired,
    // A name over its limit is refused from this process's memory until its (shared) window ends, without a
    // statement: a client hammering past its limit costs the store one upsert per process and window.
    inMemoryBlockOnConsumed: points + 1,
    // When a statement fails, the count is taken here instead, in this process only (see StoreOutage).
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, points, duration }),
  });
}
