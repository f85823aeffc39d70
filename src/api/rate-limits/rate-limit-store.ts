import pg from 'pg';
import type { Logger } from '../../logger.ts';
import { StoreOutage } from './store-outage.ts';

/** The table of every shared budget (migration 20261127…_rate_limits); rows are `<budget>:<name>`. */
export const rateLimitTable = 'rate_limits';

// One upsert per budget and request, each well under a millisecond: a few connections serve thousands a second.
const poolMax = 4;

/** What rate-limiter-flexible's PostgreSQL store queries (its `storeType: 'pool'`). */
type StoreClient = { query(statement: pg.QueryConfig): Promise<pg.QueryResult> };

export type RateLimitStore = { client: StoreClient; outage: StoreOutage; close(): Promise<void> };

/**
 * The shared budgets' store: a small pool of its own on the service's database, so that counting never waits behind
 * the requests' own queries and a store in trouble is given up on quickly (each limit then falls back to memory).
 * Every statement's outcome tells `outage` whether the store answers.
 */
export function openRateLimitStore(databaseUrl: string, logger: Logger): RateLimitStore {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolMax,
    connectionTimeoutMillis: 2_000,
    statement_timeout: 1_000,
    query_timeout: 2_000,
    keepAlive: true,
  });
  // An idle connection that dies (a database restart) is dropped by the pool; the next statement finds out whether
  // the store is back. Without a listener the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  const outage = new StoreOutage(logger);
  let closed = false;
  const client: StoreClient = {
    async query(statement) {
      // The library's sweep timer outlives a stopped server; a closed store is no outage.
      if (closed) throw new Error('The rate-limit store is closed');
      try {
        const result = await pool.query(statement);
        outage.answered();
        return result;
      } catch (error) {
        outage.failed(error);
        throw error;
      }
    },
  };
  return {
    client,
    outage,
    close() {
      closed = true;
      return pool.end();
    },
  };
}
