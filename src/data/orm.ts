import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';

export type Database = MikroORM;

export function ormOptions(databaseUrl: string, poolMax = 10) {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    debug: false,
    // The database is created by whoever provisions it (dev stack, tests, operator), never implicitly.
    ensureDatabase: false,
    pool: { min: 0, max: poolMax },
    migrations: {
      path: 'src/data/migrations',
      glob: 'Migration*.ts',
      emit: 'ts',
      // Listed explicitly so running them needs no file-system discovery.
      migrationsList,
      snapshotName: '.snapshot',
      snapshotOnMigrate: false,
      silent: true,
    },
  } satisfies Options;
}

export function openDatabase(databaseUrl: string, poolMax?: number): Promise<Database> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax));
}

/** Applies pending migrations; returns the names of those applied. */
export async function migrateDatabase(orm: Database): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
