import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDelivery } from '../../src/adapters/database/entities/webhook-delivery.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { deliveryIdOf } from '../../src/adapters/webhook-sender/delivery-id.ts';
import { deliverToWebhooks, type RoundResult } from '../../activities/deliver-to-webhooks.ts';
import { handOverEvent } from '../../src/domain/events/hand-over-event.ts';
import type { deliverEvent } from '../../workflows/deliver-event.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// An event handed over again after its delivery has ended, or a delivery round run again after it sent (the
// activity retried after a worker died, say), must not reach the receiver twice: the event's workflow ID stays
// taken, a round skips what the log already holds, and the delivery id is derived from (event, webhook), so even a
// receiver that saw a retry could tell it apart.

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
  it('when it is handed over and its round runs a second time, then nothing more is sent and each webhook has one delivery, with the derived delivery id', async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const webhooks = [];
    for (const name of ['a', 'b'])
      webhooks.push((await workspace.client.post<{ id: string }>('/webhooks', { url: `${receiver.url}/${name}`, events: 'post.published' })).body);
    const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Once' })).body.id;
    const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Once', prompt: 'One bell', projectId })).body.id;
    expect((await workspace.client.post(`/posts/${postId}/publish`)).status).toBe(200);

    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId, type: 'post.published' }));
    const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
    expect((await delivery.result()).webhooks.map(({ outcome, attempts }) => ({ outcome, attempts }))).toEqual([
      { outcome: 'delivered', attempts: 1 },
      { outcome: 'delivered', attempts: 1 },
    ]);
    const first = await delivery.describe();

    const deps = app.api.services;
    await handOverEvent(deps, event.id);
    const round: RoundResult = await new MockActivityEnvironment().run(() => deliverToWebhooks(deps, { eventId: event.id, attempt: 1 }));

    expect(round.map((result) => result.outcome)).toEqual(['delivered', 'delivered']);
    expect((await delivery.describe()).runId).toBe(first.runId);
    const received = receiver.deliveries.filter((item) => (item.body as { data?: { id?: string } } | undefined)?.data?.id === postId);
    expect(received.map((item) => item.deliveryId).sort()).toEqual(webhooks.map((webhook) => deliveryIdOf(event.id, webhook.id)).sort());
    expect(await app.api.services.orm.em.fork().count(WebhookDelivery, { eventId: event.id })).toBe(2);
  });
});
