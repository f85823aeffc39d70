import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { migrateDatabase, openDatabase } from '../data/orm.ts';
import { devSecrets } from '../embedded/dev-secrets.ts';
import { dataDir, resolveLocalDatabase } from '../embedded/local-database.ts';
import { preferPort } from '../embedded/ports.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../embedded/temporal-dev-server.ts';
import { ensureDevApiKey } from './dev-api-key.ts';

// `npm run dev`: the whole service on one machine with embedded defaults. PostgreSQL (a private cluster under
// DATA_DIR unless DATABASE_URL is set), the Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set),
// migrations, then the worker and the api as two processes, exactly as they run in production. Ctrl-C stops
// everything this command started.

const log = (message: string) => console.log(`[dev] ${message}`);
const started = Date.now();
mkdirSync(dataDir(), { recursive: true });

const database = await resolveLocalDatabase(log);
let temporal: TemporalDevServer | undefined;
if (!process.env.TEMPORAL_ADDRESS) {
  log('Starting the Temporal dev server...');
  temporal = await startTemporalDevServer({
    port: await preferPort(7233),
    uiPort: await preferPort(8233),
    databaseFile: resolve(dataDir(), 'temporal.sqlite'),
    log,
  });
}

const port = process.env.PORT ?? String(await preferPort(3000));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...devSecrets(),
  DATABASE_URL: database.url,
  TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? temporal?.address,
  PORT: port,
  HOST: process.env.HOST ?? '127.0.0.1',
  STORAGE_DIR: process.env.STORAGE_DIR ?? join(dataDir(), 'objects'),
};
const config = loadConfig(env);

const orm = await openDatabase(config.database.url);
const applied = await migrateDatabase(orm);
log(applied.length > 0 ? `Applied migrations: ${applied.join(', ')}` : 'Database is up to date.');
const devKey = await ensureDevApiKey(orm);
await orm.close();

const children = [run('worker', 'worker/main.ts'), run('api', 'src/api/main.ts')];
await waitForReady(`http://127.0.0.1:${port}/ready`);

const apiUrl = config.http.publicUrl ?? `http://localhost:${port}`;
console.log(`
  Content service is running (ready in ${Math.round((Date.now() - started) / 1000)} s)

  API          ${apiUrl}/api/v1
  API docs     ${apiUrl}/docs
  Temporal UI  ${temporal?.uiUrl ?? `(external Temporal at ${config.temporal.address})`}
  API key      ${devKey.apiKey}   (Growth workspace ${devKey.workspaceId})

  Try: curl -H "Authorization: Bearer ${devKey.apiKey}" ${apiUrl}/api/v1/projects

  Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
await Promise.all(children.map((child) => new Promise((resolveExit) => child.once('exit', resolveExit))));
await stop('SIGTERM');

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('Stopping...');
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode === null) child.kill(signal);
      if (child.exitCode === null) await new Promise((resolveExit) => child.once('exit', resolveExit));
    }),
  );
  await temporal?.stop();
  if (database.cluster?.started) await database.cluster.stop();
  log('Stopped.');
  process.exit(0);
}

function run(name: string, script: string): ChildProcess {
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.once('exit', (code, signal) => {
    if (!stopping) log(`${name} exited (${signal ?? `code ${code}`}); stopping the stack.`);
    void stop('SIGTERM');
  });
  return child;
}

async function waitForReady(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((response) => response.ok, () => false);
    if (ok) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
  throw new Error(`The api did not become ready at ${url}`);
}
