import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions, type Database } from './orm.ts';

/** Any fixed number no other code of ours takes an advisory lock on: the migrator's mutex, per database. */
export const migrationLockKey = 3_510_727_004;

/**
 * Applies pending migrations; returns the names of those applied. Run by `npm run migrate`, `npm run dev` and the
 * tests' setup, never by the api, the worker or the admin CLI (they only check, see schema-version.ts).
 *
 * Two migrators started at once (two deploy jobs, an operator and a deploy) migrate once: each first takes a
 * session-level advisory lock on a connection of its own, so the second waits until the first has finished and
 * then finds nothing pending. The lock goes with its session, also when the process dies. The migrations run without
 * a statement timeout: DDL on a large table (an index on `posts`) takes longer than any request's bound.
 */
export async function migrateDatabase(databaseUrl: string, log: (message: string) => void = () => {}): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl, options: '-c statement_timeout=0' });
  // A session that dies is reported by the query waiting on it; without a listener the error would end the process.
  lock.on('error', () => {});
  await lock.connect();
  try {
    const { rows } = await lock.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [migrationLockKey]);
    if (!rows[0]?.locked) {
      log('Another process is migrating this database; waiting for it to finish...');
      await lock.query('select pg_advisory_lock($1)', [migrationLockKey]);
    }
    const orm = await openMigratorDatabase(databaseUrl);
    try {
      const applied = await orm.migrator.up();
      return applied.map((migration) => migration.name);
    } finally {
      await orm.close();
    }
  } finally {
    await lock.end();
  }
}

/** The migrator's own pool: no statement timeout, so DDL on a large table runs to its end. */
export function openMigratorDatabase(databaseUrl: string): Promise<Database> {
  return MikroORM.init(ormOptions(databaseUrl, 2, 0));
}
