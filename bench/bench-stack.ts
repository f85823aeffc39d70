import type { Worker } from '@temporalio/worker';
import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../src/config.ts';
import { startApiServer, type ApiServer } from '../src/api/server.ts';
import { migrateDatabase, openDatabase } from '../src/data/orm.ts';
import { createWorkspace } from '../src/domain/workspaces/create-workspace.ts';
import { startPostgresCluster } from '../src/embedded/postgres-cluster.ts';
import { startTemporalDevServer } from '../src/embedded/temporal-dev-server.ts';
import { createLogger } from '../src/logger.ts';
import { createWorker } from '../worker/create-worker.ts';
import { installTemporalRuntime } from '../worker/temporal-runtime.ts';

export type BenchStack = {
  config: Config;
  api: ApiServer;
  temporalAddress: string;
  /** A Growth workspace's key for the API. */
  apiKey: string;
  workspaceId: string;
  stop(): Promise<void>;
};

/**
 * The real service for a benchmark, in this process: a throwaway PostgreSQL cluster, a Temporal dev server, the api
 * and one worker, everything on ports chosen now and removed afterwards. Logs are off so they cost nothing.
 */
export async function startBenchStack(overrides: Record<string, string> = {}): Promise<BenchStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'content-service-bench-'));
  chmodSync(workDir, 0o755);
  // Stopped in reverse order, also when start-up fails half-way.
  const stops: Array<() => Promise<void>> = [() => Promise.resolve(rmSync(workDir, { recursive: true, force: true }))];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const cluster = await startPostgresCluster({ directory: join(workDir, 'postgres'), ephemeral: true });
    stops.push(() => cluster.stop());
    const temporal = await startTemporalDevServer({ headless: true });
    stops.push(() => temporal.stop());
    const databaseUrl = await cluster.ensureDatabase('bench');
    const orm = await openDatabase(databaseUrl);
    await migrateDatabase(orm);
    const { workspace, apiKey } = await createWorkspace(orm, { name: 'Bench', plan: 'growth' });
    await orm.close();

    const config = loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: '20',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
      STORAGE_DIR: join(workDir, 'objects'),
      URL_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_REQUESTS: '1000000',
      API_WAIT_SECONDS: '120',
      ...overrides,
    });
    installTemporalRuntime(createLogger({ level: 'silent', name: 'bench' }));
    const api = await startApiServer(config);
    stops.push(() => api.stop());
    const connection = await NativeConnection.connect({ address: temporal.address });
    stops.push(() => connection.close());
    const worker: Worker = await createWorker({ connection, config, clients: api.services });
    const running = worker.run();
    stops.push(async () => {
      worker.shutdown();
      await running;
    });
    return { config, api, temporalAddress: temporal.address, apiKey, workspaceId: workspace.id, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
