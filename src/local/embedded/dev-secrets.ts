import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './local-database.ts';
import { writeFileWhole } from './write-file-whole.ts';

type DevSecrets = { URL_SIGNING_SECRET: string; ENCRYPTION_KEY: string };

// A lock older than this was left by a process that died holding it: writing the file takes milliseconds.
const staleLockMs = 10_000;

/**
 * Secrets for the one-machine dev stack, generated once and kept under DATA_DIR so signed URLs and sealed
 * credentials survive restarts (a secret added by a later version is generated then). Production passes its own
 * through the environment.
 *
 * Several processes may start at once on the same DATA_DIR (the dev stack and an admin command, two admin commands),
 * and each must end up with the secrets the file keeps: one that sealed credentials with a key the file does not
 * hold could never open them again. So a missing secret is added under a lock, after reading the file again, and
 * the file is written whole (writeFileWhole), so that no process reads it half-written.
 */
export function devSecrets(): DevSecrets {
  const file = join(dataDir(), 'dev-secrets.json');
  const saved = complete(savedSecrets(file));
  if (saved) return saved;
  mkdirSync(dataDir(), { recursive: true });
  return withLock(`${file}.lock`, () => {
    const current = savedSecrets(file);
    // Another process may have added them while this one waited for the lock.
    const done = complete(current);
    if (done) return done;
    const secrets = {
      URL_SIGNING_SECRET: current.URL_SIGNING_SECRET ?? randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: current.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    };
    writeFileWhole(file, JSON.stringify(secrets, null, 2), 0o600);
    return secrets;
  });
}

function savedSecrets(file: string): Partial<DevSecrets> {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>) : {};
}

function complete({ URL_SIGNING_SECRET, ENCRYPTION_KEY }: Partial<DevSecrets>): DevSecrets | undefined {
  return URL_SIGNING_SECRET && ENCRYPTION_KEY ? { URL_SIGNING_SECRET, ENCRYPTION_KEY } : undefined;
}

/** Runs `work` holding a lock (a directory: creating one is atomic), waiting for another holder to finish. */
function withLock<T>(lock: string, work: () => T): T {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockAgeMs(lock) > staleLockMs) rmSync(lock, { recursive: true, force: true });
      // Start-up code, synchronous: a short sleep without an event loop to yield to.
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockAgeMs(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0; // released meanwhile: try again
  }
}
