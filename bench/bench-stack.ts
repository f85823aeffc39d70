import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../src/config.ts';
import { startApiServer, type ApiServer } from '../src/api/server.ts';
import { migrateDatabase } from '../src/adapters/database/migrate-database.ts';
import { openDatabase } from '../src/adapters/database/orm.ts';
import { createWorkspace } from '../src/domain/workspaces/create-workspace.ts';
import { startPostgresCluster } from '../src/local/embedded/postgres-cluster.ts';
import { startDevStackTemporal } from '../src/local/embedded/dev-stack-temporal.ts';
import { connectWorkerConnection } from '../src/adapters/temporal/connect.ts';
import { createSlowWebhooksWorker } from '../worker/create-slow-webhooks-worker.ts';
import { createVideoWorker } from '../worker/create-video-worker.ts';
import { createWorker } from '../worker/create-worker.ts';
import { runWorkers, shutDownWorkers } from '../worker/run-workers.ts';
import { installTemporalRuntime } from '../worker/temporal-runtime.ts';
import { serviceScope, type CostScope } from './temporal-cost.ts';

export type ApiAnswer<T> = { status: number; headers: Headers; body: T };

export class ApiCallError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export type BenchStack = {
  config: Config;
  api: ApiServer;
  /** The api's own Temporal client: floors start their workflows through it, costs are read with it. */
  temporal: Client;
  /** Task queue of the floor workflows (bench/floor-workflows.ts), served by a worker of their own. */
  floorTaskQueue: string;
  /** The service's task queues and the floors': what bench/temporal-cost.ts waits on and counts. */
  scope: CostScope;
  /** Processes outside this one's tree that serve it (the PostgreSQL server daemonizes), for bench/cpu-time.ts. */
  serverPids: number[];
  /** What the stack runs on, for the bench's header: one line each. */
  described: string[];
  /** A Growth workspace's key for the API. */
  apiKey: string;
  workspaceId: string;
  /** One API call with the workspace's key; any status but 2xx throws. */
  call: ApiCall;
  /** Another Growth workspace, with a caller of its own: a benchmark that compares two set-ups side by side. */
  newWorkspace(name: string): Promise<{ workspaceId: string; call: ApiCall }>;
  /**
   * Another api and its workers on the same database and Temporal, on a task queue of their own, with settings of
   * their own (e.g. an image provider); `call` uses the stack's workspace key.
   */
  startService(overrides: Record<string, string>): Promise<BenchService>;
  stop(): Promise<void>;
};

/** An api with its workers (see BenchStack.startService). */
type BenchService = { config: Config; api: ApiServer; connection: NativeConnection; call: ApiCall; stop(): Promise<void> };

export type ApiCall = <T = unknown>(method: string, path: string, body?: unknown) => Promise<ApiAnswer<T>>;

/**
 * The real service for a benchmark, in this process: a PostgreSQL cluster of its own, the Temporal server `npm run
 * dev` starts (file-backed, with its settings), the api and one worker, everything on ports chosen now and removed
 * afterwards; beside them a worker for the floor workflows on the same Temporal. The service logs at `info` as in
 * production, through the same logger and the same kind of stream, into a file (this process's stdout is the
 * table). Webhooks and social connections may reach this machine (the benchmark's receiver and PDS are local).
 */
export async function startBenchStack(): Promise<BenchStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'content-service-bench-'));
  chmodSync(workDir, 0o755);
  // Everything this process and the ones it starts put in temporary directories (a video's work directory, the
  // Bluesky server's files) goes under the work directory too, and leaves with it.
  const scratch = join(workDir, 'tmp');
  mkdirSync(scratch);
  process.env.TMPDIR = scratch;
  // Stopped in reverse order, also when start-up fails half-way.
  const stops: Array<() => Promise<void>> = [() => Promise.resolve(rmSync(workDir, { recursive: true, force: true }))];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const cluster = await startPostgresCluster({ directory: join(workDir, 'postgres'), ephemeral: true });
    stops.push(() => cluster.stop());
    const temporal = await startDevStackTemporal({ directory: workDir, ports: 'any' });
    stops.push(() => temporal.stop());
    const databaseUrl = await cluster.ensureDatabase('bench');
    await migrateDatabase(databaseUrl);
    const orm = await openDatabase(databaseUrl);
    const { workspace, apiKey } = await createWorkspace(orm, { name: 'Bench', plan: 'growth' });
    await orm.close();

    const env: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: '20',
      TEMPORAL_ADDRESS: temporal.address,
      STORAGE_DIR: join(workDir, 'objects'),
      URL_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_REQUESTS: '1000000',
      API_WAIT_SECONDS: '120',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
      // The production retry ladder shortened to half a minute, so the receivers section sees failing endpoints
      // recover within a run (docs/configuration.md); no other section has a delivery fail.
      WEBHOOK_RETRY_WAITS_SECONDS: '1,1,2,2,4,4,8,8',
      // The Bluesky benchmark's PDS is on this machine.
      SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const logFile = join(workDir, 'service.log');
    let runtimeInstalled = false;
    const callerWith =
      (api: ApiServer, key: string): ApiCall =>
      async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
        const response = await fetch(`${api.url}${path.startsWith('/dashboard/') ? '' : '/api/v1'}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        if (!response.ok) throw new ApiCallError(`${method} ${path} answered ${response.status}: ${text}`, response.status);
        return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
      };
    // An api and its workers on a task queue of their own; stopped with the stack unless stopped before.
    const startService = async (overrides: Record<string, string>): Promise<BenchService> => {
      const config = loadConfig({ ...env, TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`, ...overrides });
      const api = await startApiServer(config, { logFile });
      // As the worker's main does: the SDK's logs go to the service's logger (one runtime per process).
      if (!runtimeInstalled) {
        installTemporalRuntime(api.services.logger);
        runtimeInstalled = true;
      }
      const connection = await connectWorkerConnection(config.temporal).catch(async (error: unknown) => {
        await api.stop();
        throw error;
      });
      const workers: Worker[] = [
        await createWorker({ connection, config, deps: api.services }),
        await createVideoWorker({ connection, config, deps: api.services }),
        await createSlowWebhooksWorker({ connection, config, deps: api.services }),
      ];
      const running = runWorkers(workers);
      let stopped: Promise<void> | undefined;
      const stopService = () =>
        (stopped ??= (async () => {
          shutDownWorkers(workers);
          await running;
          await connection.close();
          await api.stop();
        })());
      stops.push(stopService);
      return { config, api, connection, call: callerWith(api, apiKey), stop: stopService };
    };
    const { config, api, connection } = await startService({});

    const floorTaskQueue = `${config.temporal.taskQueue}-floor`;
    const floorWorker = await Worker.create({
      connection,
      taskQueue: floorTaskQueue,
      workflowsPath: fileURLToPath(new URL('./floor-workflows.ts', import.meta.url)),
      activities: { nothing: () => Promise.resolve() },
    });
    const floorRunning = floorWorker.run();
    stops.push(async () => {
      floorWorker.shutdown();
      await floorRunning;
    });

    const newWorkspace = async (name: string) => {
      const created = await createWorkspace(api.services.orm, { name, plan: 'growth' });
      return { workspaceId: created.workspace.id, call: callerWith(api, created.apiKey) };
    };
    return {
      config,
      api,
      temporal: api.services.temporal,
      floorTaskQueue,
      scope: serviceScope(api.services.temporal, config, [floorTaskQueue]),
      serverPids: [cluster.pid],
      described: [
        `Temporal: the server \`npm run dev\` starts (temporal server start-dev, file-backed: SQLite in the bench's directory; settings in src/local/embedded/temporal-dev-server.ts)`,
        `service: api and worker in this process (node ${process.version}${process.execArgv.length > 0 ? ` ${process.execArgv.join(' ')}` : ', no flags'}), NODE_ENV=production, LOG_LEVEL=info, JSON lines to ${logFile} (removed afterwards)`,
        // Not a setting of the service's, but one a production database does not have: said, so no figure hides it.
        'PostgreSQL: a cluster of its own without fsync (ephemeral, as the tests run theirs), so a commit does not wait for the disk',
      ],
      apiKey,
      workspaceId: workspace.id,
      call: callerWith(api, apiKey),
      newWorkspace,
      startService,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
