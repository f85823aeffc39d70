import { join } from 'node:path';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.ts';

const devDatabaseName = 'content_service';

export type LocalDatabase = { url: string; cluster: PostgresCluster | undefined };

/**
 * DATABASE_URL when set; otherwise the private PostgreSQL cluster under DATA_DIR (started if it is not running).
 * `npm run dev` and the admin CLI both resolve the database this way, so with the same environment they share it.
 */
export async function resolveLocalDatabase(log: (message: string) => void): Promise<LocalDatabase> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, cluster: undefined };
  const cluster = await startPostgresCluster({ directory: join(dataDir(), 'postgres'), log });
  return { url: await cluster.ensureDatabase(devDatabaseName), cluster };
}

export function dataDir(): string {
  return process.env.DATA_DIR ?? '.data';
}
