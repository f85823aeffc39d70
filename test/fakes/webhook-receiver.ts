import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { verifyServiceSignature, verifyStandardSignature } from '../../src/adapters/webhook-sender/webhook-signature.ts';

// A customer's webhook endpoint as a real HTTPS server on 127.0.0.1, checking signatures the way we tell customers
// to. It builds its server itself rather than through https-server.ts because `down()` must stop listening and
// `up()` must listen again on the same port, as a customer's server that restarts does.

type ReceivedWebhook = {
  /** The request's path (a receiver serves any path, so several webhooks can share it). */
  path: string;
  /** `X-Service-Delivery-Id`. */
  deliveryId: string | undefined;
  /** `X-Service-Timestamp`, unix seconds. */
  timestamp: number | undefined;
  /** The body parsed as JSON; undefined when it is not JSON. */
  body: unknown;
  rawBody: string;
  /** Both signatures verified; null when the receiver has no secret to verify with. */
  signatureValid: boolean | null;
  headers: IncomingHttpHeaders;
  receivedAt: Date;
};

export type WebhookReceiver = {
  /** The endpoint's URL (path /webhook). */
  url: string;
  /** Every request received, in order. */
  deliveries: ReceivedWebhook[];
  /** Answers every following request with this status (200 until told otherwise). */
  respondWith(status: number): void;
  /** Answers the next requests with these statuses (replacing any script left), then respondWith's again. */
  script(statuses: number[]): void;
  /** Holds every answer from now on (each request is recorded on arrival) until the returned release is called. */
  hold(): () => void;
  /** Back to a fresh receiver's state between tests: no deliveries, no script, 200 to everything. */
  reset(): void;
  /** Refuses connections: stops listening and drops open connections. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
};

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function verify(secret: string | undefined, headers: IncomingHttpHeaders, rawBody: string): boolean | null {
  if (secret === undefined) return null;
  const service = verifyServiceSignature(secret, rawBody, header(headers, 'x-service-signature'));
  const standard = verifyStandardSignature(secret, {
    id: header(headers, 'webhook-id') ?? '',
    timestamp: header(headers, 'webhook-timestamp') ?? '',
    body: rawBody,
    signatureHeader: header(headers, 'webhook-signature'),
  });
  return service && standard;
}

export async function startWebhookReceiver(options: { secret?: string } = {}): Promise<WebhookReceiver> {
  const deliveries: ReceivedWebhook[] = [];
  const scripted: number[] = [];
  let defaultStatus = 200;
  let held: Promise<void> | undefined;

  async function receive(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const timestamp = header(request.headers, 'x-service-timestamp');
    deliveries.push({
      path: request.url ?? '',
      deliveryId: header(request.headers, 'x-service-delivery-id'),
      timestamp: timestamp === undefined ? undefined : Number(timestamp),
      body: parseJson(rawBody),
      rawBody,
      signatureValid: verify(options.secret, request.headers, rawBody),
      headers: request.headers,
      receivedAt: new Date(),
    });

    await held;
    const status = scripted.shift() ?? defaultStatus;
    // A redirect names a real path here, so a sender that followed it would show up as a second delivery.
    const redirect = status >= 300 && status < 400 ? { location: '/webhook-moved' } : {};
    // No kept-alive connections: a sender must not find a stale one after down(), which would fail differently
    // (closed rather than refused) depending on timing.
    response.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...redirect });
    response.end(JSON.stringify({ status }));
  }

  const server = createServer({ cert: readFileSync(inject('devCertPath')), key: readFileSync(inject('devKeyPath')) }, (request, response) => {
    receive(request, response).catch(() => response.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolveListen) => server.listen(port, '127.0.0.1', resolveListen));
  const stop = () =>
    new Promise<void>((resolveClose) => {
      if (!server.listening) return resolveClose();
      server.close(() => resolveClose());
      server.closeAllConnections();
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/webhook`,
    deliveries,
    respondWith(status) {
      defaultStatus = status;
    },
    script(statuses) {
      scripted.splice(0, scripted.length, ...statuses);
    },
    reset() {
      deliveries.length = 0;
      scripted.length = 0;
      defaultStatus = 200;
    },
    hold() {
      let release!: () => void;
      held = new Promise((resolveHold) => (release = resolveHold));
      return () => {
        held = undefined;
        release();
      };
    },
    down: stop,
    up: () => listen(port),
    close: stop,
  };
}
