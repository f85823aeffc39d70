import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './local-database.ts';

type DevSecrets = { URL_SIGNING_SECRET: string; ENCRYPTION_KEY: string };

/**
 * Secrets for the one-machine dev stack, generated once and kept under DATA_DIR so signed URLs and sealed
 * credentials survive restarts (a secret added by a later version is generated then). Production passes its own
 * through the environment.
 */
export function devSecrets(): DevSecrets {
  const file = join(dataDir(), 'dev-secrets.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>) : {};
  const secrets: DevSecrets = {
    URL_SIGNING_SECRET: saved.URL_SIGNING_SECRET ?? randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: saved.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  };
  if (secrets.URL_SIGNING_SECRET !== saved.URL_SIGNING_SECRET || secrets.ENCRYPTION_KEY !== saved.ENCRYPTION_KEY) {
    mkdirSync(dataDir(), { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}
