import { spawn } from 'node:child_process';
import { findFreePort } from './ports.ts';
import { ensureTemporalCli } from './temporal-cli.ts';
import { isTemporalServing } from '../../adapters/temporal/connect.ts';
import { searchAttributeFlags } from '../../adapters/temporal/search-attributes.ts';

// `temporal server start-dev`: a complete Temporal server with its Web UI in one process, for `npm run dev` and the
// test suite. Production points TEMPORAL_ADDRESS at a Temporal cluster instead.

export type TemporalDevServer = {
  address: string;
  uiUrl: string | undefined;
  /** The server's process (fault tests suspend it to play a hung Temporal). */
  pid: number;
  stop(): Promise<void>;
};

export type DevServerOptions = {
  port?: number;
  uiPort?: number;
  /** SQLite file that keeps workflows across restarts; in memory when omitted. */
  databaseFile?: string;
  headless?: boolean;
  /** Server settings on top of the ones below (the test suite's). */
  dynamicConfig?: Record<string, string | number | boolean>;
  log?: (message: string) => void;
};

/**
 * Server settings of the dev server (`--dynamic-config-value`), each for a server that runs in one process.
 *
 * - The dev server keeps every workflow on its one history shard, and a shard loads its transfer tasks (each
 *   "a workflow or activity task is ready for a worker" step) at most `transferProcessorMaxPollRPS` times a second,
 *   20 by default: a cap sized for clusters that spread the same load over hundreds of shards. On one shard it is
 *   the whole server's cap, and every hop of a workflow waits for the next of those 20 slots, so each activity
 *   added tens of milliseconds to a workflow's round trip. The host-wide cap (a share of
 *   `history.persistenceMaxQPS`) still bounds the load on the server's database.
 * - Eager activity execution: a workflow task's completion answers with the activity it just scheduled when this
 *   worker can run it, saving the trip through the task queue (one hop per activity). Production clusters can
 *   turn it on the same way; it changes no workflow's behaviour.
 * - The search attributes cache, which the CLI turns off so that an attribute created while the server runs is
 *   usable at once. Ours are all registered before it serves (`--search-attribute`), and without the cache every
 *   start, upsert and visibility write reads the cluster's metadata from SQLite again, which every schedule create
 *   pays. Production servers keep it on; by the server's code, an attribute created later is seen within a minute
 *   (the cache's refresh interval).
 * - One partition per task queue rather than four. Partitions spread a busy queue over matching hosts; in one
 *   process they only add work: a task or a poll that lands on a partition with no match is forwarded to the root.
 *   With the collector below, this takes CPU off every workflow the server runs.
 */
const dynamicConfig: Record<string, string | number | boolean> = {
  'history.transferProcessorMaxPollRPS': 10_000,
  'system.enableActivityEagerExecution': true,
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/**
 * The server's Go garbage collector lets the heap grow to five times what is live before collecting (GOGC=400; Go's
 * default, 100, collects once it has doubled). Without a database file the server keeps every workflow in its heap,
 * and collecting it that often took a large share of its CPU. It costs memory (the resident size grows by about
 * two thirds with thousands of workflows held), which a dev or test server can spare. A GOGC of the caller's own is
 * kept.
 */
const goGarbageCollection = { GOGC: process.env.GOGC ?? '400' };

/**
 * SQLite's settings when the server keeps its workflows in a file (`npm run dev`): a write-ahead log, synced to disk
 * at its checkpoints rather than at every commit. With SQLite's defaults every write the server makes (each workflow
 * start, task and event) waits for the disk to confirm, and the disk's latency, not the server's work, set the pace
 * of everything. A crash of the server loses nothing this way; a crash of the machine may lose the last moments'
 * writes, never the file's consistency, which a dev stack can afford.
 */
const sqlitePragmas = ['journal_mode=wal', 'synchronous=normal'];

export async function startTemporalDevServer(options: DevServerOptions = {}): Promise<TemporalDevServer> {
  const cli = await ensureTemporalCli(options.log);
  const port = options.port ?? (await findFreePort());
  const uiPort = options.uiPort ?? (await findFreePort());
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--http-port',
    String(await findFreePort()),
    '--metrics-port',
    String(await findFreePort()),
    '--log-level',
    'warn',
    ...searchAttributeFlags().flatMap((flag) => ['--search-attribute', flag]),
    ...Object.entries({ ...dynamicConfig, ...options.dynamicConfig }).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    ...(options.databaseFile ? ['--db-filename', options.databaseFile, ...sqlitePragmas.flatMap((pragma) => ['--sqlite-pragma', pragma])] : []),
    ...(options.headless ? ['--headless'] : []),
  ];
  // Detached: its owner decides when it stops (after the processes that use it), not a Ctrl-C on the terminal.
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: { ...process.env, ...goGarbageCollection } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));

  const address = `127.0.0.1:${port}`;
  try {
    await waitForFrontend(address, exited);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`The Temporal dev server did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return {
    address,
    uiUrl: options.headless ? undefined : `http://127.0.0.1:${uiPort}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

async function waitForFrontend(address: string, exited: Promise<void>): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (hasExited) throw new Error('the process exited');
    if (await isTemporalServing(address)) return;
    if (Date.now() > deadline) throw new Error(`the server did not answer at ${address} within 60 s`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
}
