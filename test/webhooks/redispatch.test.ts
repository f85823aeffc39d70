import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceEvent } from '../../src/data/entities/workspace-event.ts';
import { workflowIds } from '../../src/temporal/workflow-ids.ts';
import { deliveryIdOf } from '../../src/webhooks/delivery-id.ts';
import { dispatchEvent } from '../../activities/dispatch-event.ts';
import { activityDeps } from '../../worker/create-worker.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// An event dispatched again after its delivery has ended (the dispatch activity retried after a worker died, say)
// must not reach the receiver twice: the delivery's workflow ID stays taken, and its delivery id is derived from
// (event, webhook), so even a receiver that saw a retry could tell it apart.

let receiver: WebhookReceiver;
let app: TestApp;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' });
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

describe('an event dispatched again after its delivery ended', () => {
  it('when the dispatch runs a second time, then no second delivery starts and the receiver has one, with the derived delivery id', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const webhook = (await workspace.client.post<{ id: string }>('/webhooks', { url: receiver.url, events: 'post.published' })).body;
    const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Once' })).body.id;
    const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Once', prompt: 'One bell', projectId })).body.id;
    expect((await workspace.client.post(`/posts/${postId}/publish`)).status).toBe(200);

    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId, type: 'post.published' }));
    const delivery = app.api.services.temporal.workflow.getHandle(workflowIds.webhookDelivery(webhook.id, event.id));
    const first = await eventually(async () => {
      const description = await delivery.describe();
      expect(description.status.name).toBe('COMPLETED');
      return description;
    });

    await dispatchEvent(activityDeps(app.config, app.api.services), { eventId: event.id });

    const after = await delivery.describe();
    expect(after.runId).toBe(first.runId);
    const received = receiver.deliveries.filter((item) => (item.body as { data?: { id?: string } } | undefined)?.data?.id === postId);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-service-delivery-id']).toBe(deliveryIdOf(event.id, webhook.id));
  });
});
