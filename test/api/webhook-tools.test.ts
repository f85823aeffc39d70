import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { verifyServiceSignature, verifyStandardSignature } from '../../src/adapters/webhook-sender/webhook-signature.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createWebhookFixture } from '../support/webhook-fixtures.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// The customer tools of the webhooks (extensions): a test event sent while the client waits, and the redelivery of
// a logged delivery, which runs in a workflow and shows up in the delivery log. Receivers are real HTTPS servers.

type Problem = Schemas['Problem'];
type Hook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];
type TestResult = Schemas['TestWebhookResponse'];
type Redelivery = Schemas['RedeliverWebhookDeliveryResponse'];

const secret = 'whsec-tools-0123456789';
const unknownId = '018f0000-0000-7000-8000-000000000000';
let receiver: WebhookReceiver;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
  app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' });
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});
// A workspace of its own for every test: every webhook of a workspace hears its events, so one test's webhooks would
// otherwise receive the next test's posts.
beforeEach(async () => {
  receiver.reset();
  workspace = await createTestWorkspace(app, 'growth');
  projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Tools' })).body.id;
});

async function createHook(url = receiver.url, options: { secret?: string; client?: TestWorkspace['client'] } = { secret }): Promise<Hook> {
  const response = await (options.client ?? workspace.client).post<Hook>('/webhooks', {
    url,
    events: 'post.published',
    ...(options.secret ? { secret: options.secret } : {}),
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function logOf(hookId: string): Promise<Delivery[]> {
  const response = await workspace.client.get<Delivery[]>(`/webhooks/${hookId}/deliveries`);
  expect(response.status).toBe(200);
  return response.body;
}

async function hookOf(hookId: string): Promise<Hook | undefined> {
  return (await workspace.client.get<Hook[]>('/webhooks')).body.find((hook) => hook.id === hookId);
}

/** Publishes a new post and waits until the webhook's first attempt is in its log. */
async function deliveredEvent(hook: Hook): Promise<Delivery> {
  const post = (await workspace.client.post<{ id: string }>('/posts', { title: 'Again', prompt: 'Echo', projectId })).body;
  expect((await workspace.client.post(`/posts/${post.id}/publish`)).status).toBe(200);
  const [first] = await eventually(async () => {
    const log = await logOf(hook.id);
    expect(log).toHaveLength(1);
    return log;
  });
  return first!;
}

/** Redelivers once the delivery has left its automatic schedule (its workflow ends just after logging the attempt). */
async function redeliverWhenSettled(hookId: string, deliveryId: string) {
  return eventually(async () => {
    const response = await workspace.client.post<Redelivery>(`/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`);
    expect(response.status).toBe(202);
    return response;
  });
}

describe('POST /webhooks/{id}/test', () => {
  it('when a signed webhook is tested, then the receiver gets a webhook.test event signed both ways and the answer is its status and time', async () => {
    const hook = await createHook();
    const response = await workspace.client.post<TestResult>(`/webhooks/${hook.id}/test`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      statusCode: 200,
      durationMs: expect.any(Number),
      succeeded: true,
      error: null,
      responseBody: '{"status":200}',
    });
    expect(response.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.deliveries).toHaveLength(1);
    const received = receiver.deliveries[0]!;
    expect(received.body).toEqual({ event: 'webhook.test', workspaceId: workspace.id, timestamp: expect.any(String), data: { webhookId: hook.id } });
    expect(received.deliveryId).toBe(response.body.deliveryId);
    expect(received.headers['webhook-id']).toBe(response.body.deliveryId);
    expect(verifyServiceSignature(secret, received.rawBody, received.headers['x-service-signature'] as string)).toBe(true);
    expect(
      verifyStandardSignature(secret, {
        id: received.headers['webhook-id'] as string,
        timestamp: received.headers['webhook-timestamp'] as string,
        body: received.rawBody,
        signatureHeader: received.headers['webhook-signature'] as string,
      }),
    ).toBe(true);

    const again = await workspace.client.post<TestResult>(`/webhooks/${hook.id}/test`);
    expect(again.body.deliveryId).not.toBe(response.body.deliveryId);
  });

  it('when an inactive webhook is tested and the receiver answers 410, then the test is sent and reported, and the webhook, its log and lastTriggeredAt stay as they were', async () => {
    const hook = await createHook();
    expect((await workspace.client.put(`/webhooks/${hook.id}`, { isActive: false })).status).toBe(200);
    receiver.respondWith(410);

    const response = await workspace.client.post<TestResult>(`/webhooks/${hook.id}/test`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ statusCode: 410, succeeded: false, error: 'webhook server answered 410' });
    expect(receiver.deliveries).toHaveLength(1);
    expect(await logOf(hook.id)).toEqual([]);
    expect(await hookOf(hook.id)).toMatchObject({ isActive: false, lastTriggeredAt: null });

    expect((await workspace.client.put(`/webhooks/${hook.id}`, { isActive: true })).status).toBe(200);
    await workspace.client.post(`/webhooks/${hook.id}/test`);
    expect(await hookOf(hook.id)).toMatchObject({ isActive: true, lastTriggeredAt: null });
  });

  it('when the receiver is down, then the answer is 200 with succeeded false and the reason', async () => {
    const gone = await startWebhookReceiver();
    const hook = await createHook(gone.url);
    await gone.close();

    const response = await workspace.client.post<TestResult>(`/webhooks/${hook.id}/test`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ statusCode: null, succeeded: false, error: expect.any(String), responseBody: '' });
    expect(response.body.error).not.toBe('');
  });

  it.each([
    ['a host that does not exist', 'https://no-such-host.invalid/hook'],
    ['a stored URL that cannot work', 'https://'],
  ])('when the webhook points at %s, then the answer is 200 with succeeded false', async (_case, url) => {
    const hook = await createWebhookFixture(app.api.services.orm, app.config, { workspaceId: workspace.id, url });
    const response = await workspace.client.post<TestResult>(`/webhooks/${hook.id}/test`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ statusCode: null, succeeded: false, error: expect.any(String) });
  });

  it('when a Starter workspace tests a webhook, then it answers 403; another workspace or an unknown id gets 404', async () => {
    const hook = await createHook();
    const starter = await createTestWorkspace(app, 'starter');
    const starterAnswer = await starter.client.post<Problem>(`/webhooks/${hook.id}/test`);
    expect(starterAnswer.status).toBe(403);
    expect(starterAnswer.body).toMatchObject({ type: '/problems/plan-upgrade-required', requiredPlan: 'growth' });

    const stranger = await createTestWorkspace(app, 'growth');
    expect((await stranger.client.post<Problem>(`/webhooks/${hook.id}/test`)).status).toBe(404);
    expect((await workspace.client.post<Problem>(`/webhooks/${unknownId}/test`)).status).toBe(404);
    expect(receiver.deliveries).toHaveLength(0);
  });
});

describe('POST /webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
  it('when a delivered event is redelivered, then the receiver gets it again under the same delivery id and the log shows attempt 2', async () => {
    const hook = await createHook();
    const first = await deliveredEvent(hook);

    const response = await redeliverWhenSettled(hook.id, first.deliveryId);

    expect(response.body).toEqual({ deliveryId: first.deliveryId, attempt: 2 });
    expect(response.headers.get('location')).toBe(`/api/v1/webhooks/${hook.id}/deliveries`);
    const log = await eventually(async () => {
      const rows = await logOf(hook.id);
      expect(rows).toHaveLength(2);
      return rows;
    });
    expect(log.map((row) => [row.deliveryId, row.attempt, row.succeeded])).toEqual([
      [first.deliveryId, 2, true],
      [first.deliveryId, 1, true],
    ]);
    expect(receiver.deliveries).toHaveLength(2);
    const [original, again] = receiver.deliveries;
    expect(again!.deliveryId).toBe(original!.deliveryId);
    expect(again!.headers['webhook-id']).toBe(first.deliveryId);
    expect(again!.signatureValid).toBe(true);
    expect(again!.body).toEqual(original!.body);
  });

  it('when two redeliveries of one delivery are asked at once, then each accepted one is a distinct attempt and the others answer 409', async () => {
    const hook = await createHook();
    const first = await deliveredEvent(hook);
    const settled = await redeliverWhenSettled(hook.id, first.deliveryId);
    await eventually(async () => expect(await logOf(hook.id)).toHaveLength(2));

    const answers = await Promise.all(
      [1, 2].map(() => workspace.client.post<Redelivery | Problem>(`/webhooks/${hook.id}/deliveries/${first.deliveryId}/redeliver`)),
    );

    const accepted = answers.filter((answer) => answer.status === 202).map((answer) => (answer.body as Redelivery).attempt);
    const refused = answers.filter((answer) => answer.status !== 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted).size).toBe(accepted.length);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect((answer.body as Problem).detail).toContain('already under way');
    }
    const log = await eventually(async () => {
      const rows = await logOf(hook.id);
      expect(rows).toHaveLength(2 + accepted.length);
      return rows;
    });
    expect(log.map((row) => row.attempt).sort()).toEqual([1, settled.body.attempt, ...accepted].sort());
    expect(new Set(log.map((row) => row.attempt)).size).toBe(log.length);
    expect(receiver.deliveries).toHaveLength(2 + accepted.length);
    expect(new Set(receiver.deliveries.map((received) => received.deliveryId))).toEqual(new Set([first.deliveryId]));
  });

  it('when the webhook is inactive, then it answers 409 saying so and sends nothing', async () => {
    const hook = await createHook();
    const first = await deliveredEvent(hook);
    expect((await workspace.client.put(`/webhooks/${hook.id}`, { isActive: false })).status).toBe(200);

    const response = await workspace.client.post<Problem>(`/webhooks/${hook.id}/deliveries/${first.deliveryId}/redeliver`);

    expect(response.status).toBe(409);
    expect(response.body.detail).toContain('inactive');
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('when the delivery is still on its automatic retry schedule, then it answers 409 saying the next attempt is scheduled', async () => {
    const hook = await createHook();
    receiver.respondWith(503);
    const first = await deliveredEvent(hook);
    expect(first).toMatchObject({ attempt: 1, succeeded: false, statusCode: 503 });

    const response = await workspace.client.post<Problem>(`/webhooks/${hook.id}/deliveries/${first.deliveryId}/redeliver`);

    expect(response.status).toBe(409);
    expect(response.body.detail).toContain('next attempt is already scheduled');
    expect(await logOf(hook.id)).toHaveLength(1);
    // Ends the waiting delivery: its next attempt finds the webhook gone.
    expect((await workspace.client.delete(`/webhooks/${hook.id}`)).status).toBe(204);
  });

  it('when the delivery is not one of the webhook, then it answers 404; another workspace gets 404, a Starter workspace 403, a malformed id 400', async () => {
    const hook = await createHook();
    const other = (await workspace.client.post<Hook>('/webhooks', { url: receiver.url, events: 'post.failed' })).body;
    const first = await deliveredEvent(hook);
    const redeliver = (client: TestWorkspace['client'], hookId: string, deliveryId: string) =>
      client.post<Problem>(`/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`);

    expect((await redeliver(workspace.client, hook.id, unknownId)).status).toBe(404);
    expect((await redeliver(workspace.client, other.id, first.deliveryId)).status).toBe(404);
    const stranger = await createTestWorkspace(app, 'growth');
    expect((await redeliver(stranger.client, hook.id, first.deliveryId)).status).toBe(404);
    const starter = await createTestWorkspace(app, 'starter');
    expect(await redeliver(starter.client, hook.id, first.deliveryId)).toMatchObject({ status: 403, body: { type: '/problems/plan-upgrade-required' } });
    const malformed = await redeliver(workspace.client, hook.id, 'not-a-delivery');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.map((error) => error.path)).toContain('deliveryId');
    expect(receiver.deliveries).toHaveLength(1);
  });
});
