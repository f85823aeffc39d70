import type { Server } from 'node:http';

/**
 * An idle keep-alive connection stays open `seconds` (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS; Node's own default is 5 s).
 * The time allowed for a request's headers stays a little longer, as Node's documentation asks, so that a
 * connection the balancer reuses at the last moment is not cut while its request arrives; and the time for a
 * whole request never falls below it.
 */
export function keepConnectionsAlive(server: Server, seconds: number): void {
  server.keepAliveTimeout = seconds * 1000;
  server.headersTimeout = server.keepAliveTimeout + 1000;
  server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}
