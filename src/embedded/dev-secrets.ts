import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './local-database.ts';

type DevSecrets = { URL_SIGNING_SECRET: string };

/**
 * Secrets for the one-machine dev stack, generated once and kept under DATA_DIR so signed URLs survive restarts.
 * Production passes its own through the environment.
 */
export function devSecrets(): DevSecrets {
  const file = join(dataDir(), 'dev-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  const secrets: DevSecrets = { URL_SIGNING_SECRET: randomBytes(32).toString('base64url') };
  mkdirSync(dataDir(), { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
