import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/data/orm.ts';
import { createLogger } from '../src/logger.ts';
import { startMetricsServer } from '../src/metrics/metrics-server.ts';
import { workerRegistry } from '../src/metrics/worker-metrics.ts';
import { logRefusedAddresses } from '../src/net/public-fetch.ts';
import { describeReport, reconcileSchedules } from '../src/domain/schedules/reconcile-schedules.ts';
import { createStorage } from '../src/storage/create-storage.ts';
import { startTracing } from '../src/telemetry/start-tracing.ts';
import { connectTemporalClient } from '../src/temporal/connect.ts';
import { temporalConnectionOptions } from '../src/temporal/connection-options.ts';
import { ensureSearchAttributes } from '../src/temporal/ensure-search-attributes.ts';
import { createVideoWorker } from './create-video-worker.ts';
import { createWorker } from './create-worker.ts';
import { ensureServiceSchedules } from './ensure-schedules.ts';
import { runWorkers } from './run-workers.ts';
import { installTemporalRuntime } from './temporal-runtime.ts';

// `npm run worker`: runs workflows and activities, and the video worker. Stateless: start as many as the load needs.
// The Temporal SDK handles SIGINT/SIGTERM: the workers stop polling, let running activities finish for
// WORKER_SHUTDOWN_GRACE_SECONDS, then cancel them (ffmpeg is killed; the attempt is retried elsewhere), and run()
// returns.
const tracing = startTracing('content-service-worker');
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'worker', format: config.logFormat });
// Two Prometheus endpoints: the SDK's (its native exporter binds a port of its own) and ours (deliveries,
// generations, publishes, and this Node process).
installTemporalRuntime(logger, { host: config.metrics.host, port: config.metrics.temporalPort });
const metrics = await startMetricsServer(workerRegistry, { host: config.metrics.host, port: config.metrics.workerPort });
logRefusedAddresses(logger);
const publicUrl = config.http.publicUrl ?? `http://localhost:${config.http.port}`;
const orm = await openDatabase(config.database.url, config.database.poolMax);
const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
// A client too: activities start workflows of their own (webhook deliveries).
const temporal = await connectTemporalClient(config.temporal);
try {
  const created = await ensureSearchAttributes(temporal.connection, config.temporal.namespace);
  if (created.length > 0) logger.info({ searchAttributes: created }, 'search attributes created');
  await ensureServiceSchedules(temporal, config.temporal.taskQueue, logger);
  // Start-up check: customers' schedules and Temporal agree (repairs drift left by a crash).
  const report = await reconcileSchedules(orm, temporal, config.temporal.taskQueue);
  logger.info({ report }, describeReport(report));
  const storage = createStorage(config.storage, () => publicUrl);
  await storage.prepare();
  const clients = { orm, logger, storage, temporal };
  const workers = [await createWorker({ connection, config, clients, tracing }), await createVideoWorker({ connection, config, clients })];
  logger.info({ taskQueue: config.temporal.taskQueue, videoConcurrency: config.video.concurrency, metricsUrl: metrics.url }, 'worker running');
  await runWorkers(workers);
} finally {
  await temporal.connection.close();
  await connection.close();
  await orm.close();
  await metrics.stop();
  await tracing?.shutdown();
  logger.info('worker stopped');
}
