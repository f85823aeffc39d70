import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { createDevCertificates } from '../test/infra/dev-certificates.ts';
import type { BehaviourMessage, EndpointBehaviour, ReceiverThreadData, Refusal } from './webhook-receiver-thread.ts';

// A customer's HTTPS endpoint on this machine, checking every delivery as the API documentation tells customers to
// (both signatures, computed here from the documented recipe, not with the service's own code), and recording when
// each arrived against the event's own timestamp. It runs on a thread of its own: a customer's endpoint is never in
// the service's process, and sharing the service's event loop here would charge the receiver's TLS and signature
// checks to the deliveries being measured. Each endpoint (path) takes every delivery at once unless told to refuse
// them (503) or to answer late.

/**
 * `delivery`: what must arrive exactly once (the post the event is about, and the webhook's own path); `deliveryId`:
 * the id the service gave it (`webhook-id`); `at`: Date.now() on arrival.
 */
export type Receipt = { delivery: string; deliveryId: string; at: number; lagMs: number; valid: boolean };

export type WebhookReceiver = {
  /** `https://localhost:<port>/hook`; each webhook adds a path of its own. */
  url: string;
  secret: string;
  /** The deliveries taken (answered 2xx), in the order they arrived. */
  receipts: Receipt[];
  /** The deliveries answered 503 by an endpoint told to refuse them, one entry per attempt. */
  refusals: string[];
  /** How the endpoints at these paths (`/hook/…`) answer from now on: 'take' (204 at once, the default), 'refuse'
   * (503) or `{ delayMs }` (204 that much later). */
  behave(behaviours: Record<string, EndpointBehaviour>): void;
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
  const refusals: string[] = [];
  const thread = new Worker(new URL('./webhook-receiver-thread.ts', import.meta.url), {
    // The thread's name is what the CPU profile (bench/cpu-time.ts) files its time under.
    name: 'receiver',
    workerData: { certPath: certificates.certPath, keyPath: certificates.keyPath, secret } satisfies ReceiverThreadData,
  });
  const [{ port }] = (await once(thread, 'message')) as [{ port: number }];
  thread.on('message', (message: Receipt | Refusal) => {
    if ('refused' in message) refusals.push(message.refused);
    else receipts.push(message);
  });
  const distinct = () => new Set(receipts.map((receipt) => receipt.delivery)).size;
  return {
    url: `https://localhost:${port}/hook`,
    secret,
    receipts,
    refusals,
    behave(behaviours) {
      thread.postMessage({ behave: behaviours } satisfies BehaviourMessage);
    },
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (distinct() < count && Date.now() < deadline) await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    },
    async stop() {
      const exited = once(thread, 'exit');
      thread.postMessage('stop');
      await exited;
      rmSync(certificateDir, { recursive: true, force: true });
    },
  };
}
