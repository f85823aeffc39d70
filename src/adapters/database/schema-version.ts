import type { Database } from './orm.ts';
import { migrationsList } from './migrations/index.ts';

/**
 * Refuses to run on a schema older than this code: a migration it knows is not in `mikro_orm_migrations`. Only the
 * migrator migrates (see migrate-database.ts); every other process checks at start-up, so a forgotten
 * `npm run migrate` stops it with that sentence instead of failing requests on a missing column. A newer schema
 * (migrations this code does not know) is accepted: a rolling deploy migrates first, while the replicas of the
 * release before still run. Reads only (the migrator's own getPending() creates its table on an empty database).
 */
export async function requireMigratedSchema(orm: Database): Promise<void> {
  const pending = await pendingMigrations(orm);
  if (pending.length === 0) return;
  throw new Error(
    `The database schema is older than this code: ${pending.length} migration(s) not applied (${pending.join(', ')}). ` +
      'Run `npm run migrate` (with the same DATABASE_URL), then start this process again.',
  );
}

/** The migrations this code knows that the database has not run, oldest first. */
async function pendingMigrations(orm: Database): Promise<string[]> {
  const connection = orm.em.getConnection();
  const [table] = await connection.execute<Array<{ name: string | null }>>("select to_regclass('mikro_orm_migrations')::text as name");
  const executed = table?.name ? await connection.execute<Array<{ name: string }>>('select name from mikro_orm_migrations') : [];
  const names = new Set(executed.map((row) => row.name));
  return migrationsList.map((migration) => migration.name).filter((name) => !names.has(name));
}
