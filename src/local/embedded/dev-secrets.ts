import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './local-database.ts';

type DevSecrets = { URL_SIGNING_SECRET: string; ENCRYPTION_KEY: string };

/**
 * Secrets for the one-machine dev stack, generated once and kept under DATA_DIR so signed URLs and sealed
 * credentials survive restarts (a secret added by a later version is generated then). Production passes its own
 * through the environment.
 *
 * Several processes may start at once on a new DATA_DIR (the dev stack and an admin command, two admin commands):
 * the file is written whole under another name and then put in place, so no process reads it half-written, and
 * only the first process to put it there wins; every process then uses what the file holds.
 */
export function devSecrets(): DevSecrets {
  const file = join(dataDir(), 'dev-secrets.json');
  const existing = savedSecrets(file);
  const saved = existing ?? {};
  if (saved.URL_SIGNING_SECRET && saved.ENCRYPTION_KEY) return { URL_SIGNING_SECRET: saved.URL_SIGNING_SECRET, ENCRYPTION_KEY: saved.ENCRYPTION_KEY };
  const secrets: DevSecrets = {
    URL_SIGNING_SECRET: saved.URL_SIGNING_SECRET ?? randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: saved.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  };
  mkdirSync(dataDir(), { recursive: true });
  const whole = `${file}.${process.pid}.partial`;
  writeFileSync(whole, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  try {
    // A file without every secret is replaced; a missing one is created only if no other process created it first.
    if (existing) renameSync(whole, file);
    else linkSync(whole, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(whole, { force: true });
  }
  return savedSecrets(file) as DevSecrets;
}

function savedSecrets(file: string): Partial<DevSecrets> | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>) : undefined;
}
