import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { infrastructure } from './infrastructure.ts';

/**
 * Configuration for a test file: its own database and task queue, a storage directory of its own inside the run's
 * scratch directory (removed with it in global teardown), port 0.
 */
export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  const env: Record<string, string | undefined> = { ...testConfigEnv(databaseUrl), ...overrides };
  // ENCRYPTION_KEYS given replaces the one random key (both at once are refused).
  if (overrides.ENCRYPTION_KEYS !== undefined && overrides.ENCRYPTION_KEY === undefined) delete env.ENCRYPTION_KEY;
  return loadConfig(env);
}

/** The same as environment variables, for tests that start the real entry points as processes. */
export function testConfigEnv(databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: testLogLevel(),
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: '5',
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    STORAGE_DIR: mkdtempSync(join(inject('scratchDir'), 'objects-')),
    URL_SIGNING_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Any free port: test files run side by side.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    TEMPORAL_METRICS_PORT: '0',
  };
}

/** Tests log errors only (a failing response validation shows up); TEST_LOG_LEVEL=info shows everything. */
export function testLogLevel(): string {
  return process.env.TEST_LOG_LEVEL ?? 'error';
}
