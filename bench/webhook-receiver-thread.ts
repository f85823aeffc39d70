import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import type { Receipt } from './webhook-receiver.ts';

// The receiver's HTTPS server, on a thread of its own (see webhook-receiver.ts): it posts `{ port }` once listening,
// then one Receipt per request it takes and one Refusal per request it answers 503, and closes when told 'stop'.
// Each path answers 204 at once unless told otherwise (`{ behave }`): 'refuse' answers 503 until told 'take', and
// `{ delayMs }` answers 204 that much later.

export type ReceiverThreadData = { certPath: string; keyPath: string; secret: string };
export type EndpointBehaviour = 'refuse' | 'take' | { delayMs: number };
export type BehaviourMessage = { behave: Record<string, EndpointBehaviour> };
export type Refusal = { refused: string };

const { certPath, keyPath, secret } = workerData as ReceiverThreadData;
const port = parentPort!;
const behaviours = new Map<string, EndpointBehaviour>();

const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks).toString();
    const header = (name: string) => String(request.headers[name] ?? '');
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const valid =
      same(`sha256=${hmac(raw).toString('hex')}`, header('x-service-signature')) &&
      header('webhook-signature')
        .split(' ')
        .some((entry) => same(`v1,${hmac(`${id}.${timestamp}.${raw}`).toString('base64')}`, entry));
    const at = Date.now();
    const body = JSON.parse(raw) as { timestamp: string; data: { id: string } };
    const delivery = `${body.data.id} ${request.url}`;
    const behaviour = behaviours.get(request.url ?? '') ?? 'take';
    if (behaviour === 'refuse') {
      port.postMessage({ refused: delivery } satisfies Refusal);
      response.writeHead(503).end();
      return;
    }
    const receipt: Receipt = { delivery, deliveryId: id, at, lagMs: at - Date.parse(body.timestamp), valid };
    port.postMessage(receipt);
    if (behaviour === 'take') response.writeHead(204).end();
    else setTimeout(() => response.writeHead(204).end(), behaviour.delayMs);
  });
});
server.listen(0, '127.0.0.1', () => port.postMessage({ port: (server.address() as AddressInfo).port }));
port.on('message', (message: 'stop' | BehaviourMessage) => {
  if (message !== 'stop') {
    for (const [path, behaviour] of Object.entries(message.behave)) behaviours.set(path, behaviour);
    return;
  }
  server.close(() => port.close());
  server.closeAllConnections();
});

function hmac(content: string): Buffer {
  return createHmac('sha256', secret).update(content, 'utf8').digest();
}

function same(expected: string, given: string): boolean {
  return expected.length === given.length && timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}
