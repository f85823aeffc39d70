import { loadConfig } from '../src/config.ts';
import { startMetricsServer } from '../src/adapters/metrics/metrics-server.ts';
import { workerRegistry } from '../src/adapters/metrics/worker-metrics.ts';
import { createServices } from '../src/services.ts';
import { startTracing } from '../src/adapters/telemetry/start-tracing.ts';
import { connectWorkerConnection } from '../src/adapters/temporal/connect.ts';
import { ensureSearchAttributes } from '../src/adapters/temporal/ensure-search-attributes.ts';
import { createSlowWebhooksWorker } from './create-slow-webhooks-worker.ts';
import { createVideoWorker } from './create-video-worker.ts';
import { createWorker } from './create-worker.ts';
import { ensureServiceSchedules } from './ensure-schedules.ts';
import { runWorkers } from './run-workers.ts';
import { installTemporalRuntime } from './temporal-runtime.ts';

// `npm run worker`: runs workflows and activities, and the video worker. Stateless: start as many as the load needs.
// The Temporal SDK handles SIGINT/SIGTERM: the workers stop polling, let running activities finish for
// WORKER_SHUTDOWN_GRACE_SECONDS, then cancel them (ffmpeg is killed; the attempt is retried elsewhere), and run()
// returns.
const config = loadConfig();
const tracing = startTracing('content-service-worker', config.tracing);
// The client in these deps is for activities that start workflows of their own (webhook deliveries).
const deps = await createServices(config, { name: 'worker' });
const { logger } = deps;
// Two Prometheus endpoints: the SDK's (its native exporter binds a port of its own) and ours (deliveries,
// generations, publishes, and this Node process).
installTemporalRuntime(logger, { host: config.metrics.host, port: config.metrics.temporalPort });
const metrics = await startMetricsServer(workerRegistry, { host: config.metrics.host, port: config.metrics.workerPort });
const connection = await connectWorkerConnection(config.temporal);
try {
  // What the namespace needs, created or brought up to date. Neither stops the worker when it fails: every replica
  // does this at start-up (see ensureServiceSchedules for why that is safe), so the next one to start, or this one's
  // next start, tries again, while this one polls. Customers' schedules are reconciled by the `schedules-reconcile`
  // schedule's workflow, not here: start-up does not grow with their number nor stop on one Temporal refuses.
  await ensureSearchAttributes(deps.temporal.connection, config.temporal.namespace).then(
    (created) => {
      if (created.length > 0) logger.info({ searchAttributes: created }, 'search attributes created');
    },
    (error: unknown) => logger.error({ err: error }, 'search attributes not ensured; workflows that set them fail until they exist'),
  );
  await ensureServiceSchedules(deps.temporal, config.temporal.taskQueue, logger).catch((error: unknown) =>
    logger.error({ err: error }, 'service schedules not ensured; the next worker start tries again'),
  );
  const workers = [
    await createWorker({ connection, config, deps, tracing }),
    await createVideoWorker({ connection, config, deps }),
    await createSlowWebhooksWorker({ connection, config, deps }),
  ];
  logger.info({ taskQueue: config.temporal.taskQueue, videoConcurrency: config.video.concurrency, metricsUrl: metrics.url }, 'worker running');
  await runWorkers(workers);
} finally {
  await connection.close();
  await deps.close();
  await metrics.stop();
  await tracing?.shutdown();
  logger.info('worker stopped');
}
