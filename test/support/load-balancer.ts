import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type LoadBalancer = { url: string; close(): Promise<void> };

/**
 * A small HTTP load balancer on loopback, as an operator puts in front of several api replicas: each request goes to
 * the next upstream in turn, and the client's address is appended to `X-Forwarded-For` the way nginx's
 * `$proxy_add_x_forwarded_for` does. Behind it every client shares the balancer's address unless the api trusts one
 * proxy hop.
 */
export async function startLoadBalancer(upstreams: string[]): Promise<LoadBalancer> {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/', upstreams[next++ % upstreams.length]);
    const forwarded = [incoming.headers['x-forwarded-for'], incoming.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = request(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host, 'x-forwarded-for': forwarded } },
      (answer: IncomingMessage) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

export type LoopbackResponse = { status: number; headers: IncomingMessage['headers']; body: string };

/**
 * One request from a chosen loopback address (127.0.0.2, 127.0.0.3, ...): the way two clients on different machines
 * reach the balancer, which sees them at different addresses.
 */
export function requestFrom(localAddress: string, url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<LoopbackResponse> {
  return new Promise((resolveResponse, reject) => {
    const sent = request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress, agent: false }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolveResponse({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
      answer.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}
