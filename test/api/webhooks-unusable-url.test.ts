import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverToWebhooks, type RoundResult } from '../../activities/deliver-to-webhooks.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import type { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import { WebhookDelivery } from '../../src/adapters/database/entities/webhook-delivery.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { deliverEvent } from '../../workflows/deliver-event.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createWebhookFixture } from '../support/webhook-fixtures.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// A webhook row whose URL cannot be used (written before the API checked URLs well, or by hand): it must cost its own
// delivery one logged attempt and nothing else. Publishing and generating answer as usual, the post can be changed
// again, and the workspace's other webhook gets every event. The api waits 10 s, so an action held up by the
// delivery shows as 202 instead of 200.

type Problem = Schemas['Problem'];

let receiver: WebhookReceiver;
let stability: StabilityServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let unusable: Webhook;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stability = await startStabilityServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', STABILITY_API_KEY: stability.apiKey, STABILITY_API_URL: stability.url, API_WAIT_SECONDS: '10' },
    project: 'Jam',
  }));
  // Older than the good webhook, so it comes first wherever webhooks are taken in order.
  unusable = await createWebhookFixture(app.api.services.orm, app.config, { workspaceId: workspace.id, url: 'https://' });
  expect((await workspace.client.post('/webhooks', { url: receiver.url, events: 'post.published,post.failed' })).status).toBe(201);
});
afterAll(async () => {
  await app?.stop();
  await stability?.close();
  await receiver?.close();
});

async function newPost(): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Jam', prompt: 'A traffic jam', projectId })).body.id;
}

async function eventOf(postId: string, type: string) {
  return eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId, type: type as WorkspaceEvent['type'] }));
}

async function receivedFor(postId: string, event: string) {
  return eventually(() => {
    const found = receiver.deliveries.find((delivery) => (delivery.body as { event?: string; data?: { id?: string } } | undefined)?.data?.id === postId);
    expect(found?.body).toMatchObject({ event, data: { id: postId } });
    return Promise.resolve(found!);
  });
}

describe('a webhook row with an unusable URL', () => {
  it('when a post is published, then it answers 200, the post can be changed and published again, and the other webhook gets the event', async () => {
    const postId = await newPost();
    const published = await workspace.client.post<Schemas['Post']>(`/posts/${postId}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.status).toBe('published');
    await receivedFor(postId, 'post.published');

    expect((await workspace.client.put<Schemas['Post']>(`/posts/${postId}`, { title: 'Jam, changed' })).status).toBe(200);
    expect((await workspace.client.post(`/posts/${postId}/publish`)).status).toBe(200);
  });

  it('when its delivery runs, then one failed attempt is logged with the reason and it is not retried', async () => {
    const postId = await newPost();
    expect((await workspace.client.post(`/posts/${postId}/publish`)).status).toBe(200);
    const event = await eventOf(postId, 'post.published');
    const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
    const { webhooks } = await eventually(() => delivery.result());
    expect(webhooks.find((result) => result.webhookId === unusable.id)).toMatchObject({ outcome: 'unusable', attempts: 1 });
    const log = await app.api.services.orm.em.fork().find(WebhookDelivery, { webhookId: unusable.id, eventId: event.id });
    expect(log).toEqual([expect.objectContaining({ attempt: 1, succeeded: false, statusCode: null, error: expect.stringContaining('not a valid URL') })]);

    // The same round run again (a retried activity) reads its answer from the log: still unusable, not put on the ladder.
    const deps = app.api.services;
    const again: RoundResult = await new MockActivityEnvironment().run(() => deliverToWebhooks(deps, { eventId: event.id, attempt: 1 }));
    expect(again.find((result) => result.webhookId === unusable.id)?.outcome).toBe('unusable');
    expect(await app.api.services.orm.em.fork().count(WebhookDelivery, { webhookId: unusable.id, eventId: event.id })).toBe(1);
  });

  it('when a generation fails, then it answers 422, the post can be generated again, and the other webhook gets post.failed', async () => {
    const postId = await newPost();
    stability.script([{ status: 403, name: 'content_moderation', errors: ['flagged'] }]);
    const failed = await workspace.client.post<Problem>(`/posts/${postId}/generate`);
    expect(failed.status).toBe(422);
    expect(failed.body.type).toBe('/problems/generation-failed');
    await receivedFor(postId, 'post.failed');

    expect((await workspace.client.post(`/posts/${postId}/generate`)).status).toBe(200);
  });
});
