import type { Client } from '@temporalio/client';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { connectTemporalClient } from '../../src/adapters/temporal/connect.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { testConfigEnv } from './test-config.ts';
import { createTestDatabase } from './test-database.ts';
import { startWorkerProcess } from './worker-process.ts';

export type CrashTestBed = {
  readonly orm: Database;
  /** The environment the file's worker processes start with. */
  readonly env: Record<string, string>;
  readonly config: Config;
  readonly client: Client;
  /** A worker process on the file's task queue, with the crash tests' bundle (heartbeat timeouts of at most 5 s). */
  startWorker(): ReturnType<typeof startWorkerProcess>;
};

/**
 * What the tests that kill worker processes share, opened before the file's tests and closed after them: a database
 * of its own, the environment its workers start with (the file's task queue; the run's dev CA, so they trust the
 * fakes' certificates the way a deployment would; and `extraEnv`, read once the file's own `beforeAll` hooks
 * registered before this call have started its fakes), that environment's config and a Temporal client.
 */
export function useCrashTestBed(extraEnv: () => Record<string, string> = () => ({})): CrashTestBed {
  let opened:
    { database: Awaited<ReturnType<typeof createTestDatabase>>; orm: Database; env: Record<string, string>; config: Config; client: Client } | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    const orm = await openDatabase(database.url);
    const env = { ...testConfigEnv(database.url), NODE_EXTRA_CA_CERTS: inject('devCaCertPath'), ...extraEnv() };
    const config = loadConfig(env);
    opened = { database, orm, env, config, client: await connectTemporalClient(config.temporal) };
  });
  afterAll(async () => {
    if (!opened) return;
    await opened.client.connection.close();
    await opened.orm.close();
    await opened.database.drop();
    rmSync(opened.config.storage.directory, { recursive: true, force: true });
  });
  const open = () => {
    if (!opened) throw new Error('the crash test bed is open only while the tests run');
    return opened;
  };
  return {
    get orm() {
      return open().orm;
    },
    get env() {
      return open().env;
    },
    get config() {
      return open().config;
    },
    get client() {
      return open().client;
    },
    startWorker: () => startWorkerProcess(open().env, { quickFailover: true }),
  };
}
