import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { createDevCertificates } from '../test/infra/dev-certificates.ts';

// A customer's HTTPS endpoint on this machine, checking every delivery as the API documentation tells customers to
// (both signatures, computed here from the documented recipe, not with the service's own code), and recording when
// each arrived against the event's own timestamp.

/**
 * `delivery`: what must arrive exactly once (the post the event is about, and the webhook's own path); `deliveryId`:
 * the id the service gave it (`webhook-id`); `at`: Date.now() on arrival.
 */
export type Receipt = { delivery: string; deliveryId: string; at: number; lagMs: number; valid: boolean };

export type WebhookReceiver = {
  /** `https://localhost:<port>/hook`; each webhook adds a path of its own. */
  url: string;
  secret: string;
  receipts: Receipt[];
  /** Resolves once `count` distinct deliveries (post × webhook) have arrived, or after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
};

const secret = 'bench-webhook-secret-0123456789';

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const certificateDir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  const certificates = await createDevCertificates(certificateDir);
  setDefaultCACertificates([...getCACertificates('default'), readFileSync(certificates.caCertPath, 'utf8')]);
  const receipts: Receipt[] = [];
  const server: Server = createServer({ cert: readFileSync(certificates.certPath), key: readFileSync(certificates.keyPath) }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const header = (name: string) => String(request.headers[name] ?? '');
      const id = header('webhook-id');
      const timestamp = header('webhook-timestamp');
      const valid =
        same(`sha256=${hmac(raw).toString('hex')}`, header('x-service-signature')) &&
        header('webhook-signature').split(' ').some((entry) => same(`v1,${hmac(`${id}.${timestamp}.${raw}`).toString('base64')}`, entry));
      const at = Date.now();
      const body = JSON.parse(raw) as { timestamp: string; data: { id: string } };
      receipts.push({ delivery: `${body.data.id} ${request.url}`, deliveryId: id, at, lagMs: at - Date.parse(body.timestamp), valid });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const distinct = () => new Set(receipts.map((receipt) => receipt.delivery)).size;
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/hook`,
    secret,
    receipts,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (distinct() < count && Date.now() < deadline) await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    },
    async stop() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
      rmSync(certificateDir, { recursive: true, force: true });
    },
  };
}

function hmac(content: string): Buffer {
  return createHmac('sha256', secret).update(content, 'utf8').digest();
}

function same(expected: string, given: string): boolean {
  return expected.length === given.length && timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}
