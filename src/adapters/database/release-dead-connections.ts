import type { Pool, PoolClient } from 'pg';

/**
 * Gives a pooled connection back to the pool when it dies while checked out. kysely's controlled transactions (what
 * MikroORM's `transactional` runs on) release their connection only after a BEGIN, COMMIT or ROLLBACK that
 * succeeds (kysely-org/kysely#1990), so every transaction caught by a database restart kept its dead connection for
 * ever: the pool shrank with each outage until requests only waited out the connection timeout, and closing it hung.
 * pg-pool discards a released client whose connection has ended. The release becomes idempotent for the checkout,
 * since a plain query's own release (kysely releases those in a `finally`) may come after ours and pg-pool throws
 * on a second release.
 */
export function releaseDeadConnections(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<PoolClient> | undefined;
  // kysely asks for connections with the promise form; the callback form is left as it is.
  pool.connect = ((callback?: unknown) => (callback ? connect(callback) : connect()!.then(releasedWhenDead))) as Pool['connect'];
}

function releasedWhenDead(client: PoolClient): PoolClient {
  const release = client.release.bind(client);
  let released = false;
  const onEnd = () => releaseOnce(new Error('The database connection ended while it was checked out'));
  const releaseOnce = (error?: Error | boolean) => {
    if (released) return;
    released = true;
    client.off('end', onEnd);
    release(error);
  };
  client.once('end', onEnd);
  client.release = releaseOnce;
  return client;
}
