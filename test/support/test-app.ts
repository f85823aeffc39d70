import type { Worker } from '@temporalio/worker';
import { rmSync } from 'node:fs';
import type { Config } from '../../src/config.ts';
import { startApiServer, type ApiServer } from '../../src/api/server.ts';
import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';
import { connectWorkerConnection } from '../../src/adapters/temporal/connect.ts';
import { createSlowWebhooksWorker } from '../../worker/create-slow-webhooks-worker.ts';
import { createVideoWorker } from '../../worker/create-video-worker.ts';
import { createWorker } from '../../worker/create-worker.ts';
import { runWorkers, shutDownWorkers } from '../../worker/run-workers.ts';
import { createTestDatabase } from './test-database.ts';
import { testConfig } from './test-config.ts';
import { infrastructure } from './infrastructure.ts';

export type TestApp = {
  config: Config;
  api: ApiServer;
  url: string;
  storage: ObjectStorage;
  stop(): Promise<void>;
};

/**
 * The real service for one test file: the HTTP api (responses validated against openapi.yaml) and a worker on the
 * file's own task queue (and its video queue), against the run's PostgreSQL and Temporal dev server. Every answer is
 * checked against openapi.yaml unless `validateResponses` is false (a caller that checks them itself).
 */
export async function startTestApp(
  overrides: Record<string, string> = {},
  options: { databaseUrl?: string; validateResponses?: boolean } = {},
): Promise<TestApp> {
  // A database of its own, unless the test restarts the service on one it keeps.
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: () => Promise.resolve() } : await createTestDatabase();
  const config = testConfig(database.url, overrides);
  const api = await startApiServer(config, { validateResponses: options.validateResponses ?? true });
  const connection = await connectWorkerConnection(config.temporal);
  const workers: Worker[] = [
    await createWorker({ connection, config, deps: api.services, workflowBundlePath: infrastructure.workflowBundlePath }),
    await createVideoWorker({ connection, config, deps: api.services }),
    await createSlowWebhooksWorker({ connection, config, deps: api.services }),
  ];
  const running = runWorkers(workers);
  return {
    config,
    api,
    url: api.url,
    storage: api.services.storage,
    async stop() {
      shutDownWorkers(workers);
      await running;
      await connection.close();
      await api.stop();
      await database.drop();
      rmSync(config.storage.directory, { recursive: true, force: true });
    },
  };
}
