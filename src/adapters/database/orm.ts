import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';
import { releaseDeadConnections } from './release-dead-connections.ts';

export type Database = MikroORM;

const idleInTransactionTimeoutMs = 30_000;

/** `statementTimeoutMs`: the server-side bound on one statement; 0 for none (the migrator's, see migrate-database.ts). */
export function ormOptions(databaseUrl: string, poolMax = 10, statementTimeoutMs = 10_000) {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    debug: false,
    // The database is created by whoever provisions it (dev stack, tests, operator), never implicitly.
    ensureDatabase: false,
    pool: { min: 0, max: poolMax },
    // A request never waits on the database for ever: a connection (a free one from the pool, or a new one) comes
    // within 5 s, a statement ends within 10 s on the server (lock waits included), and a server that stops
    // answering altogether is given up on after 15 s (the migrator excepted: an index on a large table takes longer).
    // Each surfaces as "database unavailable" (503 at the api, a retry in the worker). Keepalive notices a peer that
    // vanished without closing the connection. A connection that dies in the middle of a transaction goes back to the
    // pool (see releaseDeadConnections).
    driverOptions: {
      connectionTimeoutMillis: 5_000,
      // A transaction left open while its process waits on something else (a remote server, a hung await) holds a
      // pooled connection and its locks from every other tenant; the server ends such a session after 30 s, which
      // gives the connection back (releaseDeadConnections) and rolls the transaction back. Nothing of ours waits on a
      // remote server inside a transaction (see src/adapters/social/connection-leases.ts).
      idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
      // pg leaves a statement_timeout of 0 out of the session's parameters (the database's or role's default would
      // then apply): "none" is sent as an option of its own.
      ...(statementTimeoutMs === 0
        ? { options: '-c statement_timeout=0' }
        : { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 5_000 }),
      keepAlive: true,
      onPoolCreated: releaseDeadConnections,
    },
    // The shared rate limits' table has no entity: rate-limiter-flexible reads and writes it (its migration says why).
    schemaGenerator: { skipTables: ['rate_limits'] },
    migrations: {
      path: 'src/adapters/database/migrations',
      glob: 'Migration*.ts',
      emit: 'ts',
      // Listed explicitly so running them needs no file-system discovery.
      migrationsList,
      // No schema snapshot: `npm run migration:create` diffs the entities against a database the migrations have
      // just built, the one truth about what they create. A snapshot file would be diffed against instead, and a
      // second copy drifts: a stale one makes the next migration repeat what earlier ones did.
      snapshot: false,
      silent: true,
    },
  } satisfies Options;
}

export function openDatabase(databaseUrl: string, poolMax?: number): Promise<Database> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax));
}
