import { resolveLocalDatabase } from '../embedded/local-database.ts';
import { migrateDatabase, openDatabase } from './orm.ts';

// `npm run migrate`: applies pending migrations to DATABASE_URL (or the dev cluster under DATA_DIR).
const database = await resolveLocalDatabase(console.error);
const orm = await openDatabase(database.url);
try {
  const applied = await migrateDatabase(orm);
  console.error(applied.length > 0 ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date.');
} finally {
  await orm.close();
  if (database.cluster?.started) await database.cluster.stop();
}
