import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { resealSecrets } from '../../src/domain/secrets/reseal-secrets.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { apiClient, type ApiClient } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// A rolling deploy from key A to key B, on one database, as the rotation steps in docs/operations.md go: replicas on
// the old key alone, then a replica with B first and A to read (beside one still on A), then a reseal, then B alone.
// Before keys had ids a replica with another key could open nothing the old one had sealed: every webhook secret and
// stored idempotent answer broke.

const secret = 'whsec-rotation-0123456789';
const [keyA, keyB] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
let receiver: WebhookReceiver;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const running: TestApp[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const app of running) await app.stop();
  await database?.drop();
  await receiver?.close();
});

async function replica(keys: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp({ ...keys, WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, { databaseUrl: database.url });
  running.push(app);
  return app;
}

async function stop(app: TestApp): Promise<void> {
  running.splice(running.indexOf(app), 1);
  await app.stop();
}

/** A test event through this replica: it must open the webhook's sealed secret to sign it. */
async function signedTestEvent(client: ApiClient, webhookId: string): Promise<boolean | null | undefined> {
  receiver.reset();
  const result = (await client.post<Schemas['TestWebhookResponse']>(`/webhooks/${webhookId}/test`)).body;
  expect(result.succeeded).toBe(true);
  return receiver.deliveries[0]?.signatureValid;
}

describe('rotating the encryption key with replicas running', () => {
  it(
    'when replicas move from ENCRYPTION_KEY=A to ENCRYPTION_KEYS=B,A and then B, then webhook secrets and stored answers keep working',
    { timeout: 180_000 },
    async () => {
      const old = await replica({ ENCRYPTION_KEY: keyA });
      const workspace = await createTestWorkspace(old, 'growth');
      const hook = (await workspace.client.post<Schemas['Webhook']>('/webhooks', { url: receiver.url, events: 'post.published', secret })).body;
      const createKey = (client: ApiClient) => client.post('/api-keys', { name: 'Rotation' }, { headers: { 'idempotency-key': 'rotation-answer' } });
      const answer = await createKey(workspace.client);
      expect(answer.status).toBe(201);

      // Step 2: the new key first, the old one to read, while a replica on the old key still runs.
      const rotated = await replica({ ENCRYPTION_KEYS: `${keyB},${keyA}` });
      const client = apiClient(rotated.url, workspace.key);
      expect(await signedTestEvent(client, hook.id)).toBe(true);
      const replayed = await createKey(client);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(answer.body);

      // Step 3: once no replica seals with A, everything A sealed is moved to B.
      await stop(old);
      const report = await resealSecrets(rotated.api.services);
      expect(report.columns.filter((column) => column.remaining > 0)).toEqual([]);
      expect(report.columns.find((column) => column.table === 'webhooks')?.resealed).toBe(1);

      // Step 4: B alone.
      await stop(rotated);
      const renewed = await replica({ ENCRYPTION_KEYS: keyB });
      const renewedClient = apiClient(renewed.url, workspace.key);
      expect(await signedTestEvent(renewedClient, hook.id)).toBe(true);
      const again = await createKey(renewedClient);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(answer.body);
    },
  );
});
