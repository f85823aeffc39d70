import { loadConfig } from '../config.ts';
import { runUntilSignal } from '../common/process/run-until-signal.ts';
import { startTracing } from '../adapters/telemetry/start-tracing.ts';
import { startApiServer } from './server.ts';

// `npm run api`: the HTTP API on its own (production, or beside `npm run worker`).
const config = loadConfig();
const tracing = startTracing('content-service-api', config.tracing);
const server = await startApiServer(config);
await runUntilSignal(async () => {
  await server.stop();
  await tracing?.shutdown();
}, server.services.logger);
