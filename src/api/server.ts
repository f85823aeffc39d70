import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicBaseUrl, type Config } from '../config.ts';
import { LastUsedTracker } from '../domain/api-keys/last-used-tracker.ts';
import { apiRegistry } from '../adapters/metrics/api-metrics.ts';
import { startMetricsServer } from '../adapters/metrics/metrics-server.ts';
import { IdempotencyKeySweeper } from '../domain/idempotency/sweep-expired-idempotency-keys.ts';
import { createServices, type Services } from '../services.ts';
import { createApp } from './app.ts';
import { openRateLimitStore } from './rate-limits/rate-limit-store.ts';
import { RateLimiter } from './rate-limits/rate-limiter.ts';
import { keepConnectionsAlive } from './keep-alive.ts';

// Expired keys are ignored when claimed; the sweep only keeps the table small, so a quarter of an hour is plenty.
const idempotencyKeySweepSeconds = 15 * 60;

export type ApiServer = { url: string; metricsUrl: string; services: Services; lastUsed: LastUsedTracker; stop(): Promise<void> };

/**
 * Starts the HTTP API and, on a port of its own, its Prometheus metrics; either port may be 0 (tests), the chosen
 * ones are in `url` and `metricsUrl`.
 */
export async function startApiServer(config: Config, options: { validateResponses?: boolean; logFile?: string } = {}): Promise<ApiServer> {
  let publicUrl = publicBaseUrl(config.http);
  const services = await createServices(config, { name: 'api', publicUrl: () => publicUrl, logFile: options.logFile });
  const lastUsed = new LastUsedTracker(services.orm, services.logger);
  const rateLimits = openRateLimitStore(config.database.url, services.logger);
  const app = createApp({
    deps: services,
    lastUsed,
    rateLimiter: new RateLimiter(config.rateLimit, { store: rateLimits }),
    trustProxyHops: config.http.trustProxyHops,
    urlSigningSecret: config.storage.urlSigningSecret,
    validateResponses: options.validateResponses ?? false,
  });

  const metrics = await startMetricsServer(apiRegistry, { host: config.metrics.host, port: config.metrics.apiPort });
  const server: Server = app.listen(config.http.port, config.http.host);
  keepConnectionsAlive(server, config.http.keepAliveTimeoutSeconds);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  publicUrl = publicBaseUrl(config.http, port);
  lastUsed.start(config.apiKeys.lastUsedFlushSeconds);
  const idempotencyKeys = new IdempotencyKeySweeper(services.orm, services.logger);
  idempotencyKeys.start(idempotencyKeySweepSeconds);
  services.logger.info({ url: publicUrl, metricsUrl: metrics.url }, 'api listening');

  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metrics.url,
    services,
    lastUsed,
    async stop() {
      // Stop accepting, let requests in flight finish, then flush and close clients.
      const closed = new Promise<void>((resolveClose, reject) => server.close((error) => (error ? reject(error) : resolveClose())));
      server.closeIdleConnections();
      await closed;
      await metrics.stop();
      await lastUsed.stop();
      await idempotencyKeys.stop();
      await rateLimits.close();
      await services.close();
    },
  };
}
