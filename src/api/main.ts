import { loadConfig } from '../config.ts';
import { runUntilSignal } from '../process/run-until-signal.ts';
import { startApiServer } from './server.ts';

// `npm run api`: the HTTP API on its own (production, or beside `npm run worker`).
const server = await startApiServer(loadConfig());
await runUntilSignal(() => server.stop(), server.services.logger);
