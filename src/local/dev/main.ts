import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, publicBaseUrl, type Config } from '../../config.ts';
import { migrateDatabase } from '../../adapters/database/migrate-database.ts';
import { openDatabase } from '../../adapters/database/orm.ts';
import { dataDir, resolveLocalDatabase } from '../embedded/local-database.ts';
import { rememberLocalTemporal } from '../embedded/local-temporal.ts';
import { localStackEnv } from '../embedded/local-stack-env.ts';
import { connectTemporalClient } from '../../adapters/temporal/connect.ts';
import { preferPort } from '../embedded/ports.ts';
import { startDevStackTemporal } from '../embedded/dev-stack-temporal.ts';
import type { TemporalDevServer } from '../embedded/temporal-dev-server.ts';
import { ensureDevApiKey } from './dev-api-key.ts';

// `npm run dev`: the whole service on one machine with embedded defaults. PostgreSQL (a private cluster under
// DATA_DIR unless DATABASE_URL is set), the Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set),
// migrations, then the worker and the api as two processes, exactly as they run in production. Ctrl-C stops
// everything this command started, and exits 0. When the api, the worker, PostgreSQL or the Temporal dev server dies
// under it, it says which, stops the rest and exits 1: a stack missing a part only looks alive, and a supervisor
// (or the developer) restarting the whole is clearer than one part restarted under the others.

const log = (message: string) => console.log(`[dev] ${message}`);
const started = Date.now();
let stopping = false;
const children: ChildProcess[] = [];
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));
mkdirSync(dataDir(), { recursive: true });

const database = await resolveLocalDatabase(log);
let temporal: TemporalDevServer | undefined;
if (!process.env.TEMPORAL_ADDRESS) {
  log('Starting the Temporal dev server...');
  temporal = await startDevStackTemporal({ directory: dataDir(), ports: 'usual', log });
  rememberLocalTemporal(temporal.address);
}

const port = process.env.PORT ?? String(await preferPort(3000));
const env: NodeJS.ProcessEnv = {
  ...localStackEnv(database),
  PORT: port,
  // The Prometheus endpoints' usual ports, or free ones when another stack holds them.
  METRICS_PORT: process.env.METRICS_PORT ?? String(await preferPort(9464)),
  WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT ?? String(await preferPort(9465)),
  TEMPORAL_METRICS_PORT: process.env.TEMPORAL_METRICS_PORT ?? String(await preferPort(9466)),
  HOST: process.env.HOST ?? '127.0.0.1',
  STORAGE_DIR: process.env.STORAGE_DIR ?? join(dataDir(), 'objects'),
  LOG_FORMAT: process.env.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
};
const config = loadConfig(env);

const applied = await migrateDatabase(config.database.url, log);
log(applied.length > 0 ? `Applied migrations: ${applied.join(', ')}` : 'Database is up to date.');
const orm = await openDatabase(config.database.url);
const devKey = await ensureDevApiKey(orm);
await orm.close();

watch('PostgreSQL', database.cluster?.pid);
watch('The Temporal dev server', temporal?.pid);
children.push(run('worker', 'worker/main.ts'), run('api', 'src/api/main.ts'));
await waitForReady(`http://127.0.0.1:${port}/ready`);
await waitForWorker(config);

const apiUrl = publicBaseUrl(config.http);
console.log(`
  Content service is running (ready in ${Math.round((Date.now() - started) / 1000)} s)

  API          ${apiUrl}/api/v1
  API docs     ${apiUrl}/docs
  Dashboard    ${apiUrl}/dashboard   (log in with the API key below)
  Temporal UI  ${temporal?.uiUrl ?? `(external Temporal at ${config.temporal.address})`}
  Metrics      http://${config.metrics.host}:${config.metrics.apiPort}/metrics (api), :${config.metrics.workerPort} (worker), :${config.metrics.temporalPort} (Temporal SDK)
  API key      ${devKey.apiKey}   (Growth workspace ${devKey.workspaceId})

  Try: curl -H "Authorization: Bearer ${devKey.apiKey}" ${apiUrl}/api/v1/projects

  Ctrl-C stops everything.
`);

await new Promise(() => {});

/**
 * Stops what this command started, users of a service before the service: api and worker, Temporal, PostgreSQL; then
 * exits with `code` (1 when a part died under the stack).
 */
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('Stopping...');
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGTERM');
      await exited;
    }),
  );
  // A part that died is stopped all the same (nothing left to do); one that will not stop must not keep the rest up.
  await temporal?.stop().catch((error: unknown) => log(`Could not stop the Temporal dev server: ${String(error)}`));
  if (database.cluster?.started) await database.cluster.stop().catch((error: unknown) => log(`Could not stop PostgreSQL: ${String(error)}`));
  log(code === 0 ? 'Stopped.' : `Stopped (exit code ${code}).`);
  process.exit(code);
}

/** Notices within a second when a server the stack runs on (by its process id) is gone, and stops the stack. */
function watch(name: string, pid: number | undefined): void {
  if (pid === undefined) return;
  const timer = setInterval(() => {
    if (stopping || isRunning(pid)) return;
    clearInterval(timer);
    log(`${name} (pid ${pid}) has stopped under the stack; stopping the rest.`);
    void stop(1);
  }, 1000);
  timer.unref();
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user (PostgreSQL runs as its own).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Children run in process groups of their own, so a Ctrl-C reaches only this process, which then stops everything
// in order (each child exactly once).
function run(name: string, script: string): ChildProcess {
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  child.once('exit', (code, signal) => {
    if (stopping) return;
    log(`The ${name} exited (${signal ?? `code ${code}`}); stopping the stack.`);
    void stop(1);
  });
  return child;
}

async function waitForReady(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
  throw new Error(`The api did not become ready at ${url}`);
}

async function waitForWorker({ temporal: settings }: Config): Promise<void> {
  const { connection } = await connectTemporalClient(settings);
  try {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const { pollers } = await connection.workflowService.describeTaskQueue({ namespace: settings.namespace, taskQueue: { name: settings.taskQueue } });
      if (pollers.length > 0) return;
      await new Promise((resolveWait) => setTimeout(resolveWait, 250));
    }
    throw new Error(`No worker polls the task queue ${settings.taskQueue}`);
  } finally {
    await connection.close();
  }
}
