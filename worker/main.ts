import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/data/orm.ts';
import { createLogger } from '../src/logger.ts';
import { logRefusedAddresses } from '../src/net/public-fetch.ts';
import { describeReport, reconcileSchedules } from '../src/domain/schedules/reconcile-schedules.ts';
import { createStorage } from '../src/storage/create-storage.ts';
import { startTracing } from '../src/telemetry/start-tracing.ts';
import { connectTemporalClient } from '../src/temporal/connect.ts';
import { createWorker } from './create-worker.ts';
import { ensureServiceSchedules } from './ensure-schedules.ts';
import { installTemporalRuntime } from './temporal-runtime.ts';

// `npm run worker`: runs workflows and activities. Stateless: start as many as the load needs. The Temporal SDK
// handles SIGINT/SIGTERM: the worker stops polling, lets running activities finish, and run() returns.
const tracing = startTracing('content-service-worker');
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'worker', format: config.logFormat });
installTemporalRuntime(logger);
logRefusedAddresses(logger);
const publicUrl = config.http.publicUrl ?? `http://localhost:${config.http.port}`;
const orm = await openDatabase(config.database.url, config.database.poolMax);
const connection = await NativeConnection.connect({ address: config.temporal.address });
// A client too: activities start workflows of their own (webhook deliveries).
const temporal = await connectTemporalClient(config.temporal);
try {
  await ensureServiceSchedules(temporal, config.temporal.taskQueue, logger);
  // Start-up check: customers' schedules and Temporal agree (repairs drift left by a crash).
  const report = await reconcileSchedules(orm, temporal, config.temporal.taskQueue);
  logger.info({ report }, describeReport(report));
  const storage = createStorage(config.storage, () => publicUrl);
  await storage.prepare();
  const worker = await createWorker({ connection, config, clients: { orm, logger, storage, temporal }, tracing });
  logger.info({ taskQueue: config.temporal.taskQueue }, 'worker running');
  await worker.run();
} finally {
  await temporal.connection.close();
  await connection.close();
  await orm.close();
  await tracing?.shutdown();
  logger.info('worker stopped');
}
