import { describe, expect, it } from 'vitest';
import { migrationsList } from '../../src/adapters/database/migrations/index.ts';
import { migrationLockKey, openMigratorDatabase } from '../../src/adapters/database/migrate-database.ts';
import { openDatabase } from '../../src/adapters/database/orm.ts';
import { eventually } from '../support/eventually.ts';
import { runMigrate } from '../support/migrate-process.ts';
import { createTestDatabase, withClient } from '../support/test-database.ts';

// `npm run migrate` as a deploy runs it: possibly twice at once (two deploy jobs, or an operator beside one), on a
// database where an index on a large table takes longer than any request may.

/** `npm run migrate` against `databaseUrl`, as a process; resolves with its exit code and output. */
describe('npm run migrate', () => {
  it('when two start at once on a fresh database, then both exit 0 and every migration is applied exactly once', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase({ migrated: false });
    try {
      await withClient(database.url, async (holder) => {
        // Held here until both processes wait on the migrator's lock, so that they surely reach it together
        // (two processes started at once may otherwise take turns by the luck of their start-up).
        await holder.query('select pg_advisory_lock($1)', [migrationLockKey]);
        const both = [runMigrate(database.url), runMigrate(database.url)];
        await eventually(async () => {
          const { rows } = await holder.query<{ waiting: number }>(
            "select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())",
          );
          expect(rows[0]?.waiting).toBe(2);
        }, 90_000);
        await holder.query('select pg_advisory_unlock($1)', [migrationLockKey]);
        const results = await Promise.all(both);
        expect(results.map((result) => result.code)).toEqual([0, 0]);
        const outputs = results.map((result) => result.output);
        expect(outputs.filter((output) => output.includes(`Applied ${migrationsList.length} migration(s)`))).toHaveLength(1);
        expect(outputs.filter((output) => output.includes('Database is up to date.'))).toHaveLength(1);
        const { rows } = await holder.query<{ name: string }>('select name from mikro_orm_migrations order by id');
        expect(rows.map((row) => row.name)).toEqual(migrationsList.map((migration) => migration.name));
      });
    } finally {
      await database.drop();
    }
  });

  it('when the migrator runs a statement, then no statement timeout applies (the pool of the api and worker keeps its 10 s)', async () => {
    const database = await createTestDatabase();
    // A database whose own default would cut statements short: the migrator sets its own.
    await withClient(database.url, (client) => client.query(`alter database ${new URL(database.url).pathname.slice(1)} set statement_timeout = '1s'`));
    const migrator = await openMigratorDatabase(database.url);
    const pool = await openDatabase(database.url);
    try {
      const timeoutOf = async (orm: typeof pool) =>
        (await orm.em.getConnection().execute<Array<{ statement_timeout: string }>>('show statement_timeout'))[0]?.statement_timeout;
      expect(await timeoutOf(migrator)).toBe('0');
      expect(await timeoutOf(pool)).toBe('10s');
      // Longer than the database's own default of 1 s.
      await migrator.em.getConnection().execute('select pg_sleep(1.2)');
    } finally {
      await migrator.close();
      await pool.close();
      await database.drop();
    }
  });
});
