import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook, type WebhookPost } from '../../../src/adapters/webhook-sender/post-webhook.ts';
import { signWebhook } from '../../../src/adapters/webhook-sender/webhook-signature.ts';
import { startConnectionCounter, type ConnectionCounter } from '../../fakes/connection-counter.ts';
import { startHttpsServer, startSelfSignedHttpsServer, type HttpsServer } from '../../fakes/https-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook-receiver.ts';

const secret = 'whsec-post-webhook-test';
const event = { event: 'post.published', workspaceId: '7d0c5a9e-3f1b-4c2e-9a8d-1b2c3d4e5f60', data: { title: 'Launch' } };
const body = JSON.stringify(event);

function attempt(url: string, overrides: Partial<WebhookPost> = {}) {
  const headers = signWebhook({ secret, deliveryId: 'dlv_1', timestamp: Math.floor(Date.now() / 1000), body });
  return postWebhook({ url, body, headers, timeoutMs: 5_000, allowPrivateNetworks: true, ...overrides });
}

let receiver: WebhookReceiver;
let endpoint: HttpsServer;
let counter: ConnectionCounter;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
  counter = await startConnectionCounter();
  endpoint = await startHttpsServer((request, response) => {
    if (request.url === '/silent') return;
    if (request.url === '/large-error') {
      // Far more than 4 KB and never ending: only a bounded read returns.
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.write('E'.repeat(6 * 1024));
      const writer = setInterval(() => response.write('E'.repeat(1024)), 5);
      response.once('close', () => clearInterval(writer));
      return;
    }
    response.writeHead(404).end();
  });
});
afterEach(() => {
  receiver.reset();
});
afterAll(async () => {
  await receiver?.close();
  await endpoint?.close();
  await counter?.close();
});

describe('postWebhook', () => {
  it('when the endpoint answers 200, then the attempt succeeds and the endpoint got the exact body and headers', async () => {
    const headers = signWebhook({ secret, deliveryId: 'dlv_ok', timestamp: Math.floor(Date.now() / 1000), body });
    const result = await postWebhook({ url: receiver.url, body, headers, timeoutMs: 5_000, allowPrivateNetworks: true });

    expect(result).toEqual({ statusCode: 200, durationMs: expect.any(Number), error: null, responseBody: '{"status":200}', permanent: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.deliveries).toHaveLength(1);
    const [delivery] = receiver.deliveries;
    expect(delivery).toMatchObject({ deliveryId: 'dlv_ok', timestamp: Number(headers['X-Service-Timestamp']), body: event, rawBody: body });
    expect(delivery?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'content-service-webhooks/1',
      'webhook-id': 'dlv_ok',
      'x-service-signature': headers['X-Service-Signature'],
      'webhook-signature': headers['webhook-signature'],
    });
  });

  it('when the headers are signed with the shared secret, then the receiver verifies both signatures', async () => {
    await attempt(receiver.url);
    expect(receiver.deliveries[0]?.signatureValid).toBe(true);
  });

  it('when the body, the signature or the secret does not match, then the receiver finds the signature invalid', async () => {
    const headers = signWebhook({ secret, deliveryId: 'dlv_2', timestamp: Math.floor(Date.now() / 1000), body });
    await postWebhook({ url: receiver.url, body: body.replace('Launch', 'Lunch'), headers, timeoutMs: 5_000, allowPrivateNetworks: true });
    await attempt(receiver.url, { headers: { ...headers, 'webhook-signature': 'v1,AAAA' } });
    await attempt(receiver.url, { headers: signWebhook({ secret: 'another-secret', deliveryId: 'dlv_3', timestamp: 1_700_000_000, body }) });
    await attempt(receiver.url, { headers: signWebhook({ secret: null, deliveryId: 'dlv_4', timestamp: 1_700_000_000, body }) });

    expect(receiver.deliveries.map(({ signatureValid }) => signatureValid)).toEqual([false, false, false, false]);
    expect(receiver.deliveries[3]?.headers).not.toHaveProperty('x-service-signature');
  });

  it('when the endpoint answers 4xx and 5xx, then each is reported with its status and body', async () => {
    receiver.script([410, 503]);
    const gone = await attempt(receiver.url);
    const unavailable = await attempt(receiver.url);
    const afterScript = await attempt(receiver.url);

    expect(gone).toMatchObject({ statusCode: 410, error: 'webhook server answered 410', responseBody: '{"status":410}' });
    expect(unavailable).toMatchObject({ statusCode: 503, error: 'webhook server answered 503', responseBody: '{"status":503}' });
    expect(afterScript).toMatchObject({ statusCode: 200, error: null });
  });

  it('when the endpoint answers an endless body, then only the first 4 KB are read', async () => {
    const started = Date.now();
    const result = await attempt(`${endpoint.url}/large-error`);
    expect(result).toMatchObject({ statusCode: 500, error: 'webhook server answered 500', responseBody: 'E'.repeat(4096) });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when the endpoint redirects, then the redirect is reported and not followed', async () => {
    receiver.respondWith(301);
    const result = await attempt(receiver.url);
    expect(result).toMatchObject({ statusCode: 301, error: 'webhook server answered 301 (redirects are not followed)' });
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('when the endpoint does not answer in time, then the attempt reports the timeout', async () => {
    const result = await attempt(`${endpoint.url}/silent`, { timeoutMs: 300 });
    expect(result).toMatchObject({ statusCode: null, error: 'webhook server did not answer within 0.3 s', responseBody: '' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3_000);
  });

  it('when the endpoint is down, then the connection is reported refused; when it is back, then delivery works on the same URL', async () => {
    await receiver.down();
    const refused = await attempt(receiver.url);
    await receiver.up();
    const delivered = await attempt(receiver.url);

    expect(refused).toMatchObject({ statusCode: null, error: 'webhook server refused the connection', permanent: false });
    expect(delivered).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('when the URL uses http, then it is refused for good before anything is sent', async () => {
    const result = await attempt(`http://127.0.0.1:${counter.port}/webhook`);
    expect(result).toMatchObject({ statusCode: null, error: 'webhook URL must use https; the event is not retried', permanent: true });
    expect(counter.connections()).toBe(0);
  });

  it.each(['not a url', 'https://'])('when the URL is %j, then the attempt reports it as a permanent failure', async (url) => {
    expect(await attempt(url)).toMatchObject({ statusCode: null, error: 'webhook URL is not a valid URL; the event is not retried', permanent: true });
  });

  it('when private networks are not allowed, then loopback and private endpoints are refused without connecting', async () => {
    const literal = await attempt(receiver.url, { allowPrivateNetworks: false });
    const byName = await attempt(receiver.url.replace('127.0.0.1', 'localhost'), { allowPrivateNetworks: false });
    const privateAddress = await attempt('https://10.0.0.7/webhook', { allowPrivateNetworks: false });
    const metadata = await attempt('https://169.254.169.254/latest/meta-data/', { allowPrivateNetworks: false });

    expect(literal).toMatchObject({ statusCode: null, error: 'webhook host is a private address' });
    expect(byName.error).toBe('webhook host does not resolve to a public address');
    expect(privateAddress.error).toBe('webhook host is a private address');
    expect(metadata.error).toBe('webhook host is a private address');
    expect(receiver.deliveries).toHaveLength(0);
  });

  it('when the endpoint has an untrusted certificate, then TLS verification refuses it', async () => {
    let received = 0;
    const server = await startSelfSignedHttpsServer((_request, response) => {
      received += 1;
      response.end();
    });
    try {
      const result = await attempt(`${server.url}/webhook`);
      expect(result).toMatchObject({ statusCode: null, error: "webhook server's TLS certificate could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT)" });
      expect(received).toBe(0);
    } finally {
      await server.close();
    }
  });
});
