import { resolve } from 'node:path';
import { preferPort } from './ports.ts';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-dev-server.ts';

/**
 * The Temporal server of `npm run dev`: the dev server with its Web UI and its settings (temporal-dev-server.ts), its
 * workflows kept in `temporal.sqlite` under `directory` so they outlive a restart. `npm run dev` takes the usual
 * ports when they are free; the benchmarks, which may run beside it, take any free ones.
 */
export async function startDevStackTemporal(options: {
  directory: string;
  ports: 'usual' | 'any';
  log?: (message: string) => void;
}): Promise<TemporalDevServer> {
  return startTemporalDevServer({
    ...(options.ports === 'usual' ? { port: await preferPort(7233), uiPort: await preferPort(8233) } : {}),
    databaseFile: resolve(options.directory, 'temporal.sqlite'),
    ...(options.log ? { log: options.log } : {}),
  });
}
