import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../database/new-id.ts';
import type { Database } from '../database/orm.ts';
import { SocialUnavailableError } from './social-connector.ts';

// A renewal of a connection's session and a refresh of its OAuth tokens each wait on a server we do not run (the
// customer's own Bluesky PDS, a platform's token endpoint), so neither may hold a database connection meanwhile: a
// lock or an open transaction would keep one of the pool's few connections for as long as that server takes, and a
// handful of slow servers would stall every tenant. One short statement takes a lease on the connection's row
// instead (an owner token and an end, by the database's clock so replicas agree), the remote call runs with no
// transaction open, and the result is stored by a statement that writes only while the lease is still its own.
// Whoever finds a live lease waits for it without a connection (polling with backoff), then takes the lease and
// reads what the holder stored, so no two replicas ever spend one refresh token.

/** Which lease: the session's (connection-sessions.ts) or the OAuth tokens' (refresh-connection.ts). */
export type ConnectionLeaseKind = 'session' | 'refresh';

/** The lease's columns of each kind; table and column names never come from input. */
const connectionLeaseColumns: Record<ConnectionLeaseKind, { owner: string; until: string }> = {
  session: { owner: 'session_lease_owner', until: 'session_lease_until' },
  refresh: { owner: 'refresh_lease_owner', until: 'refresh_lease_until' },
};

/**
 * Longer than any holder can take: a Bluesky renewal is at most two calls and a refresh one, each bounded by the
 * platform request timeout (30 s). A holder that dies (its process killed) keeps the others waiting this long at most.
 */
const connectionLeaseMs = 120_000;

const firstPollMs = 50;
const lastPollMs = 1_000;

/**
 * Takes the connection's lease of `kind`, waiting while another holds a live one; the owner token to write and
 * release with, or undefined when the connection is gone.
 */
export async function takeConnectionLease(orm: Database, connectionId: string, kind: ConnectionLeaseKind): Promise<string | undefined> {
  const { owner, until } = connectionLeaseColumns[kind];
  const em = orm.em.fork();
  // A live lease always ends within connectionLeaseMs; waiting longer means holders keep coming back, so give up
  // as an outage (retried later) rather than wait for ever.
  const giveUpAt = Date.now() + 2 * connectionLeaseMs;
  for (let pollMs = firstPollMs; ; pollMs = Math.min(2 * pollMs, lastPollMs)) {
    const lease = newId();
    // One statement: the lease is taken if it is free or ran out; otherwise the row says whether there is a connection.
    const [row] = await em.execute<Array<{ taken: boolean; found: boolean }>>(
      `with taken as (
         update social_connections set ${owner} = ?, ${until} = now() + ? * interval '1 millisecond'
          where id = ? and (${until} is null or ${until} <= now())
         returning id)
       select exists (select 1 from taken) as taken, exists (select 1 from social_connections where id = ?) as found`,
      [lease, connectionLeaseMs, connectionId, connectionId],
      'all',
    );
    if (row?.taken) return lease;
    if (!row?.found) return undefined;
    if (Date.now() + pollMs > giveUpAt) throw new SocialUnavailableError('another renewal of this connection is taking too long; try again later');
    await sleep(pollMs);
  }
}

/** Gives the lease back, if it is still `lease` (a holder whose lease ran out may find another holder's there). */
export async function releaseConnectionLease(orm: Database, connectionId: string, kind: ConnectionLeaseKind, lease: string): Promise<void> {
  const { owner, until } = connectionLeaseColumns[kind];
  await orm.em.fork().execute(`update social_connections set ${owner} = null, ${until} = null where id = ? and ${owner} = ?`, [connectionId, lease]);
}
