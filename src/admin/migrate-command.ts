import { resolveLocalDatabase } from '../local/embedded/local-database.ts';
import { migrateDatabase } from '../adapters/database/migrate-database.ts';

// `npm run migrate`: applies pending migrations to DATABASE_URL (or the dev cluster under DATA_DIR). The one command
// that migrates a deployment: run it once per release, before the new api and workers start (they refuse an older
// schema). Several at once are safe (the second waits, then finds nothing to do).
const database = await resolveLocalDatabase(console.error);
try {
  const applied = await migrateDatabase(database.url, console.error);
  console.error(applied.length > 0 ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date.');
} finally {
  if (database.cluster?.started) await database.cluster.stop();
}
