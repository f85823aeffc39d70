import { devSecrets } from './dev-secrets.ts';
import type { LocalDatabase } from './local-database.ts';
import { localTemporal } from './local-temporal.ts';

/**
 * The environment of the one-machine stack, for loadConfig: the caller's variables, with what they leave out taken
 * from the dev stack under DATA_DIR (its PostgreSQL, its Temporal dev server, its secrets). `npm run dev` and the
 * admin CLI both start from here, so with the same environment they reach the same database and Temporal.
 */
export function localStackEnv(database: LocalDatabase, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const hasEncryptionKeys = Boolean(env.ENCRYPTION_KEYS || env.ENCRYPTION_KEY);
  return {
    // Production brings its own secrets; only a stack without them gets (and keeps) the dev stack's.
    ...(env.URL_SIGNING_SECRET && hasEncryptionKeys ? {} : devSecrets()),
    ...env,
    // The dev stack's key is one key; ENCRYPTION_KEYS given alone must not meet it (both at once are refused).
    ...(env.ENCRYPTION_KEYS ? { ENCRYPTION_KEY: env.ENCRYPTION_KEY } : {}),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS ?? localTemporal().address,
  };
}
