import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliverToWebhooks } from '../../activities/deliver-to-webhooks.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { WebhookDelivery } from '../../src/adapters/database/entities/webhook-delivery.ts';
import { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { changePlan } from '../../src/domain/workspaces/change-plan.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { deliverEvent } from '../../workflows/deliver-event.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type Hook = Schemas['Webhook'];

const secret = 'whsec-0123456789abcdef';
let receiver: WebhookReceiver;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
  ({ app, workspace, projectId } = await startAppWithWorkspace({ env: { WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, project: 'Hooks' }));
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});
beforeEach(() => {
  receiver.reset();
});

async function publishNewPost(client = workspace.client, project = projectId): Promise<string> {
  const id = (await client.post<{ id: string }>('/posts', { title: 'Signed news', prompt: 'Newspaper', projectId: project })).body.id;
  expect((await client.post(`/posts/${id}/publish`)).status).toBe(200);
  return id;
}

describe('POST /webhooks', () => {
  it('when created with a secret, then it answers 201 without the secret, which is stored sealed', async () => {
    const response = await workspace.client.post<Schemas['CreateWebhookResponse']>('/webhooks', {
      url: 'https://example.com/hooks',
      events: 'post.published, post.failed',
      secret,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/v1/webhooks/${response.body.id}`);
    expect(response.body).toEqual({
      id: expect.any(String),
      url: 'https://example.com/hooks',
      events: 'post.published,post.failed',
      isActive: true,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(response.body)).not.toContain(secret);
    const stored = await app.api.services.orm.em.fork().findOneOrFail(Webhook, response.body.id);
    expect(stored.secretSealed).not.toContain(secret);
    expect(app.api.services.secrets.open(stored.secretSealed!)).toBe(secret);
  });

  it.each([
    ['an http URL', { url: 'http://example.com/hooks' }, '/url'],
    ['an unknown event', { events: 'post.published,post.deleted' }, '/events'],
    ['no events', { events: ' , ' }, '/events'],
    ['an empty secret', { secret: '' }, '/secret'],
    ['an unknown member', { retries: 3 }, '/retries'],
  ])('when the body has %s, then it answers 400 naming the member', async (_case, overrides, path) => {
    const response = await workspace.client.post<Problem>('/webhooks', { url: 'https://example.com/hooks', events: 'post.published', ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
  });

  it('when a workspace has the most webhooks its plan allows, then one more answers 403 plan-limit-reached, even when several are created at once', async () => {
    const maxWebhooksPerWorkspace = planRules.growth.limits.webhooks!;
    const own = await createTestWorkspace(app, 'growth');
    const create = () => own.client.post('/webhooks', { url: receiver.url, events: 'post.published' });
    // All at once: the count is taken under the workspace's lock, so the last place is taken once.
    const statuses = await Promise.all(Array.from({ length: maxWebhooksPerWorkspace + 3 }, () => create().then((response) => response.status)));
    expect(statuses.filter((status) => status === 201)).toHaveLength(maxWebhooksPerWorkspace);
    expect(statuses.filter((status) => status === 403)).toHaveLength(3);
    const refused = await create();
    expect(refused.body).toMatchObject({
      type: '/problems/plan-limit-reached',
      quota: { name: 'webhooks', plan: 'growth', limit: maxWebhooksPerWorkspace },
      detail: expect.stringContaining('delete one first'),
    });
    expect(await app.api.services.orm.em.fork().count(Webhook, { workspaceId: own.id })).toBe(maxWebhooksPerWorkspace);
  });

  it('when a Starter workspace calls any webhook operation, then it answers 403 plan-upgrade-required, as the specification says', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const someId = '018f0000-0000-7000-8000-000000000000';
    for (const response of [
      await starter.client.get<Problem>('/webhooks'),
      await starter.client.post<Problem>('/webhooks', { url: 'https://example.com/h', events: 'post.published' }),
      await starter.client.put<Problem>(`/webhooks/${someId}`, { isActive: false }),
      await starter.client.delete<Problem>(`/webhooks/${someId}`),
      await starter.client.get<Problem>(`/webhooks/${someId}/deliveries`),
      await starter.client.post<Problem>(`/webhooks/${someId}/test`),
      await starter.client.post<Problem>(`/webhooks/${someId}/deliveries/${someId}/redeliver`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ type: '/problems/plan-upgrade-required', requiredPlan: 'growth' });
    }
  });
});

describe('deliveries', () => {
  it('when a subscribed post is published, then the receiver gets one signed delivery and the log and lastTriggeredAt show it', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Own' })).body.id;
    const hook = (await own.client.post<Hook>('/webhooks', { url: receiver.url, events: 'post.published', secret })).body;
    await own.client.post('/webhooks', { url: receiver.url, events: 'post.failed', secret });
    const postId = await publishNewPost(own.client, project);

    const [received] = await eventually(() => {
      expect(receiver.deliveries).toHaveLength(1);
      return Promise.resolve(receiver.deliveries);
    });
    expect(received!.signatureValid).toBe(true);
    expect(received!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(received!.body).toMatchObject({ event: 'post.published', workspaceId: own.id, data: { id: postId, title: 'Signed news', status: 'published' } });

    // The round is logged once all its requests have answered, so a moment after the receiver has the delivery.
    await eventually(async () => {
      const log = await own.client.get<Schemas['WebhookDelivery'][]>(`/webhooks/${hook.id}/deliveries`);
      expect(log.status).toBe(200);
      expect(log.body).toEqual([
        expect.objectContaining({ deliveryId: received!.deliveryId, attempt: 1, statusCode: 200, succeeded: true, error: null, eventType: 'post.published' }),
      ]);
    });
    const listed = await own.client.get<Hook[]>('/webhooks');
    expect(listed.body.find((candidate) => candidate.id === hook.id)?.lastTriggeredAt).toEqual(expect.any(String));
  });

  it('when a post is published to twenty subscribed webhooks, then each gets one signed delivery from one workflow and one round, with no workflow per webhook', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Many' })).body.id;
    const hooks: Hook[] = [];
    for (let index = 0; index < 20; index += 1)
      hooks.push((await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/${index}`, events: 'post.published', secret })).body);
    const postId = await publishNewPost(own.client, project);

    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
    const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
    const { webhooks } = await delivery.result();
    expect(webhooks.map((result) => result.outcome)).toEqual(Array.from({ length: 20 }, () => 'delivered'));
    const paths = receiver.deliveries.map((received) => received.path).sort();
    expect(paths).toEqual(hooks.map((_, index) => `/webhook/${index}`).sort());
    expect(receiver.deliveries.every((received) => received.signatureValid)).toBe(true);
    expect(new Set(receiver.deliveries.map((received) => received.deliveryId)).size).toBe(20);

    const { events } = await delivery.fetchHistory();
    // The one round ran as a local activity (a marker), inside the workflow's first task.
    expect(events!.filter((historyEvent) => historyEvent.activityTaskScheduledEventAttributes).length).toBe(0);
    expect(events!.filter((historyEvent) => historyEvent.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBe(1);
    const logs = await Promise.all(hooks.map(async (hook) => (await own.client.get<Schemas['WebhookDelivery'][]>(`/webhooks/${hook.id}/deliveries`)).body));
    expect(logs.map((log) => log.map(({ attempt, succeeded }) => ({ attempt, succeeded })))).toEqual(hooks.map(() => [{ attempt: 1, succeeded: true }]));
  });

  it('when a receiver is slow to answer, then the first round hands its request over without sending it twice, it is marked slow, and the next event sends to it from an activity of its own', async () => {
    const slowReceiver = await startWebhookReceiver({ secret });
    try {
      const own = await createTestWorkspace(app, 'growth');
      const project = (await own.client.post<{ id: string }>('/projects', { name: 'Slow' })).body.id;
      await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/prompt`, events: 'post.published', secret });
      const slow = (await own.client.post<Hook>('/webhooks', { url: slowReceiver.url, events: 'post.published', secret })).body;
      const answersSlowly = async () => (await app.api.services.orm.em.fork().findOneOrFail(Webhook, { id: slow.id })).answersSlowly;
      const deliveryOf = async (postId: string) => {
        const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
        return app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
      };

      const release = slowReceiver.hold();
      const first = await deliveryOf(await publishNewPost(own.client, project));
      await eventually(async () => expect(await answersSlowly()).toBe(true));
      // The first round handed the silent request over to an activity and ended (its workflow task with it) while the
      // request was still under way; that activity waits for its answer instead of sending it again.
      await eventually(async () =>
        expect((await first.fetchHistory()).events!.some((historyEvent) => historyEvent.activityTaskScheduledEventAttributes)).toBe(true),
      );
      expect(slowReceiver.deliveries).toHaveLength(1);
      release();
      expect((await first.result()).webhooks.map((result) => [result.outcome, result.attempts])).toEqual([
        ['delivered', 1],
        ['delivered', 1],
      ]);

      const second = await deliveryOf(await publishNewPost(own.client, project));
      expect((await second.result()).webhooks.map((result) => [result.outcome, result.attempts])).toEqual([
        ['delivered', 1],
        ['delivered', 1],
      ]);
      const { events } = await second.fetchHistory();
      // The prompt receiver in the local round (a marker), the slow one in an activity of its own, on the slow queue.
      expect(events!.filter((historyEvent) => historyEvent.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBe(1);
      const scheduled = events!.flatMap((historyEvent) => historyEvent.activityTaskScheduledEventAttributes ?? []);
      expect(scheduled.map((attributes) => attributes.taskQueue?.name)).toEqual([`${app.config.temporal.taskQueue}-webhooks-slow`]);
      expect(slowReceiver.deliveries.map((received) => received.path)).toEqual(['/webhook', '/webhook']);
      // It answered at once this time, so the next event's first round takes it again.
      expect(await answersSlowly()).toBe(false);
    } finally {
      await slowReceiver.close();
    }
  });

  it('when the activity after a round is told a request was handed over, then it sends it only if the log still lacks its answer at the deadline', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Handed over' })).body.id;
    const hook = (await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/handed-over`, events: 'post.published', secret })).body;
    const postId = await publishNewPost(own.client, project);
    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
    await app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id)).result();
    expect(receiver.deliveries).toHaveLength(1);
    const round = (attempt: number, until: number) =>
      new MockActivityEnvironment().run(() =>
        deliverToWebhooks(app.api.services, { eventId: event.id, attempt, webhookIds: [hook.id], inFlight: { webhookIds: [hook.id], until } }),
      );

    // The answer is in the log (the request did reach the receiver): taken from there at once, nothing sent again.
    expect(await round(1, Date.now() + 60_000)).toEqual([expect.objectContaining({ webhookId: hook.id, outcome: 'delivered', statusCode: 200 })]);
    expect(receiver.deliveries).toHaveLength(1);
    // An attempt whose answer never reached the log (its worker died): sent once the deadline has passed.
    expect(await round(2, Date.now() + 500)).toEqual([expect.objectContaining({ webhookId: hook.id, outcome: 'delivered', statusCode: 200 })]);
    expect(receiver.deliveries.map((received) => received.path)).toEqual(['/webhook/handed-over', '/webhook/handed-over']);
    const log = await app.api.services.orm.em.fork().find(WebhookDelivery, { webhookId: hook.id }, { orderBy: { attempt: 'asc' } });
    expect(log.map(({ attempt, succeeded }) => ({ attempt, succeeded }))).toEqual([
      { attempt: 1, succeeded: true },
      { attempt: 2, succeeded: true },
    ]);
  });

  it('when a webhook is deactivated, then it receives nothing', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Quiet' })).body.id;
    const hook = (await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/deactivated`, events: 'post.published' })).body;
    // An active one beside it: the event's delivery runs for it, and once that run has ended every webhook that
    // was going to get the event has got it.
    await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/active`, events: 'post.published' });
    const updated = await own.client.put<Hook>(`/webhooks/${hook.id}`, { isActive: false });
    expect(updated.body).toMatchObject({ id: hook.id, isActive: false });
    const postId = await publishNewPost(own.client, project);
    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
    const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
    const { webhooks } = await eventually(() => delivery.result());
    expect(webhooks.map((result) => result.outcome)).toEqual(['delivered']);
    expect(receiver.deliveries.map((received) => received.path)).toEqual(['/webhook/active']);
  });
});

describe('PUT and DELETE /webhooks/{id}', () => {
  it('when updated and deleted, then the changes apply; another workspace gets 404', async () => {
    const hook = (await workspace.client.post<Hook>('/webhooks', { url: 'https://example.com/a', events: 'post.published' })).body;
    const updated = await workspace.client.put<Hook>(`/webhooks/${hook.id}`, { url: 'https://example.com/b', events: 'post.failed', secret: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: 'https://example.com/b', events: 'post.failed', isActive: true, lastTriggeredAt: null });
    expect((await workspace.client.put(`/webhooks/${hook.id}`, {})).status).toBe(400);

    const stranger = await createTestWorkspace(app, 'growth');
    expect((await stranger.client.put(`/webhooks/${hook.id}`, { isActive: false })).status).toBe(404);
    expect((await stranger.client.delete(`/webhooks/${hook.id}`)).status).toBe(404);
    expect((await stranger.client.get(`/webhooks/${hook.id}/deliveries`)).status).toBe(404);

    expect((await workspace.client.delete(`/webhooks/${hook.id}`)).status).toBe(204);
    expect((await workspace.client.get<Hook[]>('/webhooks')).body.map((candidate) => candidate.id)).not.toContain(hook.id);
  });
});

describe('a downgrade to Starter', () => {
  it('when a delivery waits on the retry ladder and the workspace is downgraded, then it stops at once: nothing more is sent, the log says why, the run ends', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Retrying' })).body.id;
    const hook = (await own.client.post<Hook>('/webhooks', { url: `${receiver.url}/retrying`, events: 'post.published', secret })).body;
    receiver.script([500]);
    const postId = await publishNewPost(own.client, project);
    const event = await eventually(() => app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
    await eventually(async () =>
      expect(await app.api.services.orm.em.fork().count(WebhookDelivery, { webhookId: hook.id, attempt: 1, statusCode: 500 })).toBe(1),
    );
    // The downgrade finds the workspace's deliveries in Temporal's visibility store, a moment behind the start.
    const running = `WorkflowType = 'deliverEvent' AND ExecutionStatus = 'Running' AND workspaceId = '${own.id}'`;
    await eventually(async () => expect(await app.api.services.temporal.workflow.count(running)).toMatchObject({ count: 1 }));

    // The next attempt would be a minute away (the ladder's first rung): within this wait, only the downgrade ends it.
    await changePlan(app.api.services, own.id, 'starter');
    const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
    await eventually(async () => expect((await delivery.describe()).status.name).toBe('COMPLETED'), 20_000);
    const { webhooks } = await delivery.result();
    expect(webhooks).toEqual([expect.objectContaining({ webhookId: hook.id, outcome: 'not-on-plan', attempts: 2 })]);
    const log = await app.api.services.orm.em.fork().find(WebhookDelivery, { webhookId: hook.id }, { orderBy: { attempt: 'asc' } });
    expect(log.map(({ attempt, statusCode }) => ({ attempt, statusCode }))).toEqual([
      { attempt: 1, statusCode: 500 },
      { attempt: 2, statusCode: null },
    ]);
    expect(log[1]!.error).toContain('need the Growth plan');
    expect(receiver.deliveries.filter((received) => received.path === '/webhook/retrying')).toHaveLength(1);
  });

  it('when a workspace is downgraded, then its webhooks get nothing and the log says why; they are kept, behind 403, and after an upgrade they get events again', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Downgraded' })).body.id;
    const hook = (await own.client.post<Hook>('/webhooks', { url: receiver.url, events: 'post.published', secret })).body;
    await changePlan(app.api.services, own.id, 'starter');

    const quiet = await publishNewPost(own.client, project);
    const log = await eventually(async () => {
      const rows = await app.api.services.orm.em.fork().find(WebhookDelivery, { webhookId: hook.id });
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(log[0]).toMatchObject({ attempt: 1, statusCode: null, error: expect.stringContaining('need the Growth plan') });
    expect(receiver.deliveries).toHaveLength(0);
    expect((await own.client.get<Problem>('/webhooks')).status).toBe(403);
    expect((await own.client.put<Problem>(`/webhooks/${hook.id}`, { isActive: false })).status).toBe(403);

    await changePlan(app.api.services, own.id, 'growth');
    const heard = await publishNewPost(own.client, project);
    await eventually(() => {
      expect(receiver.deliveries.map((received) => (received.body as { data: { id: string } }).data.id)).toEqual([heard]);
      return Promise.resolve();
    });
    expect(heard).not.toBe(quiet);

    await changePlan(app.api.services, own.id, 'starter');
    expect((await own.client.delete(`/webhooks/${hook.id}`)).status).toBe(403);
    expect(await app.api.services.orm.em.fork().count(Webhook, { id: hook.id })).toBe(1);
  });
});
