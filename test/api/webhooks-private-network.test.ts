import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// Without WEBHOOKS_ALLOW_PRIVATE_NETWORKS (the production default), a webhook pointing at a loopback address is
// never called: the attempt is refused before connecting, and the delivery log says why.

let receiver: WebhookReceiver;
let app: TestApp;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

describe('a webhook on a private address', () => {
  it('when an event is delivered, then nothing reaches the receiver and the delivery log says why without naming the address', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const project = (await workspace.client.post<{ id: string }>('/projects', { name: 'Private' })).body.id;
    const hook = (await workspace.client.post<{ id: string }>('/webhooks', { url: receiver.url, events: 'post.published' })).body;
    const post = (await workspace.client.post<{ id: string }>('/posts', { title: 'T', prompt: 'P', projectId: project })).body;
    await workspace.client.post(`/posts/${post.id}/publish`);

    const [attempt] = await eventually(async () => {
      const log = await workspace.client.get<Schemas['WebhookDelivery'][]>(`/webhooks/${hook.id}/deliveries`);
      expect(log.body).toHaveLength(1);
      return log.body;
    });
    expect(attempt).toMatchObject({ succeeded: false, statusCode: null });
    expect(attempt!.error).toBe('webhook host is a private address');
    expect(receiver.deliveries).toHaveLength(0);
  });

  it('when the webhook is tested, then nothing reaches the receiver and the answer says why without naming the address', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const hook = (await workspace.client.post<{ id: string }>('/webhooks', { url: receiver.url, events: 'post.published' })).body;

    const response = await workspace.client.post<Schemas['TestWebhookResponse']>(`/webhooks/${hook.id}/test`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ statusCode: null, succeeded: false, error: 'webhook host is a private address' });
    expect(receiver.deliveries).toHaveLength(0);
  });
});
