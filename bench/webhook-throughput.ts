import { once } from 'node:events';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { createDevCertificates } from '../test/infra/dev-certificates.ts';
import { verifyServiceSignature } from '../src/webhooks/webhook-signature.ts';
import { startBenchStack } from './bench-stack.ts';
import { ms, percentile, runConcurrently } from './stats.ts';

// `npm run bench:webhooks`: E events (posts published through the API) to W webhooks on a local HTTPS receiver that
// verifies every signature. Prints deliveries per second, the lag from event to receipt (p50, p95) and how many
// deliveries were lost or duplicated (both must be 0).

const events = Number(process.env.BENCH_EVENTS ?? 100);
const webhooks = Number(process.env.BENCH_WEBHOOKS ?? 5);
const secret = 'bench-webhook-secret-0123456789';

const certificateDir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
const certificates = await createDevCertificates(certificateDir);
setDefaultCACertificates([...getCACertificates('default'), readFileSync(certificates.caCertPath, 'utf8')]);
const received: Array<{ deliveryId: string; lagMs: number; valid: boolean }> = [];
const receiver = createServer({ cert: readFileSync(certificates.certPath), key: readFileSync(certificates.keyPath) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString();
    const body = JSON.parse(raw) as { timestamp: string };
    received.push({
      deliveryId: String(req.headers['x-service-delivery-id']),
      lagMs: Date.now() - Date.parse(body.timestamp),
      valid: verifyServiceSignature(secret, raw, req.headers['x-service-signature'] as string | undefined),
    });
    res.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `https://localhost:${(receiver.address() as AddressInfo).port}/hook`;

const stack = await startBenchStack({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }).catch((error: unknown) => {
  receiver.close();
  rmSync(certificateDir, { recursive: true, force: true });
  throw error;
});
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${stack.api.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`);
  return (await response.json()) as { id: string };
};

try {
  for (let index = 0; index < webhooks; index += 1) await api('POST', '/webhooks', { url: `${receiverUrl}/${index}`, events: 'post.published', secret });
  const project = await api('POST', '/projects', { name: 'Bench' });
  const posts: string[] = [];
  for (let index = 0; index < events; index += 1) posts.push((await api('POST', '/posts', { title: `Event ${index}`, prompt: 'Bench', projectId: project.id })).id);

  const expected = events * webhooks;
  const started = performance.now();
  await runConcurrently(events, 8, (index) => api('POST', `/posts/${posts[index]}/publish`));
  const deadline = Date.now() + 120_000;
  while (new Set(received.map((delivery) => delivery.deliveryId)).size < expected && Date.now() < deadline) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const unique = new Set(received.map((delivery) => delivery.deliveryId)).size;
  const lags = received.map((delivery) => delivery.lagMs);

  console.log(`\n${events} events × ${webhooks} webhooks = ${expected} deliveries expected`);
  console.log(`  delivered      ${unique} in ${seconds.toFixed(1)} s  →  ${(unique / seconds).toFixed(1)} deliveries/s`);
  console.log(`  lag event→receipt  p50 ${ms(percentile(lags, 50))}  p95 ${ms(percentile(lags, 95))}  max ${ms(Math.max(...lags))}`);
  console.log(`  lost           ${expected - unique}`);
  console.log(`  duplicates     ${received.length - unique}`);
  console.log(`  bad signatures ${received.filter((delivery) => !delivery.valid).length}`);
} finally {
  await stack.stop();
  receiver.close();
  rmSync(certificateDir, { recursive: true, force: true });
}
