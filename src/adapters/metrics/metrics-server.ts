import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type MetricsServer = { url: string; stop(): Promise<void> };

/**
 * `GET /metrics` of one registry in Prometheus' text format, on a port of its own: never on the API's port, so it
 * needs no API key and is reachable only where the operator binds it (METRICS_HOST, loopback by default).
 */
export async function startMetricsServer(registry: Registry, listen: { host: string; port: number }): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`Collecting the metrics failed: ${(error as Error).message}\n`),
    );
  });
  server.listen(listen.port, listen.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostAndPort(listen.host, port)}/metrics`,
    stop: () =>
      new Promise((resolveClose, reject) => {
        server.close((error) => (error ? reject(error) : resolveClose()));
        server.closeIdleConnections();
      }),
  };
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostAndPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
