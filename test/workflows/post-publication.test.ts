import { WithStartWorkflowOperation, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Activities } from '../../activities/activity-signatures.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import { WebhookDelivery } from '../../src/adapters/database/entities/webhook-delivery.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import type { SettlePublicationInput } from '../../src/domain/publishing/settle-publication.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { updateFailureAsProblem } from '../../src/adapters/temporal/failure-problems.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { deliverEvent } from '../../workflows/deliver-event.ts';
import { cancelUpdate, planUpdate, type PublicationRequest } from '../../workflows/contracts/post-publication.ts';
import { plansPerRun, postPublication } from '../../workflows/post-publication.ts';
import { startWebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { failureOf } from '../support/failure-of.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { createWebhookFixture } from '../support/webhook-fixtures.ts';
import { runPublicationWhoseFirstPlanFails, startMadeUpPublication } from '../support/publication-runs.ts';
import { startWebhookTestBed, webhookSecret, type WebhookTestBed } from '../support/webhook-test-bed.ts';

// Scheduled publishing and webhook delivery on the time-skipping server: days of durable timers and a retry ladder
// over hours pass in seconds, and what happened is read from server time.

const day = 24 * 60 * 60 * 1000;
let bed: WebhookTestBed;

beforeAll(async () => {
  bed = await startWebhookTestBed();
});
afterAll(() => bed?.stop());
beforeEach(() => {
  bed.receiver.reset();
});

async function startPublication(postId: string) {
  return bed.client.workflow.start(postPublication, {
    workflowId: workflowIds.postPublication(postId),
    taskQueue: bed.taskQueue,
    args: [{ postId, publicationId: randomUUID() }],
  });
}

/** The delivery workflow of the post's event (the publication starts it and does not wait for it). */
async function eventDeliveryOf(postId: string) {
  const event = await bed.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId });
  return { event, eventDelivery: bed.client.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id)) };
}

/** Publishes the post now; returns its event's delivery workflow. */
async function publishNow(postId: string) {
  const handle = await startPublication(postId);
  await handle.executeUpdate(planUpdate, { args: [{ publishAt: null, connectionIds: [] }] });
  await handle.result();
  return eventDeliveryOf(postId);
}

/** How the event's delivery to one webhook ended, once the event's workflow has. */
async function deliveryResult(eventDelivery: Awaited<ReturnType<typeof eventDeliveryOf>>['eventDelivery'], webhookId: string) {
  const { webhooks } = await eventDelivery.result();
  return webhooks.find((delivery) => delivery.webhookId === webhookId)!;
}

const reload = (postId: string) => bed.orm.em.fork().findOneOrFail(Post, postId);

describe('scheduled publication', () => {
  it('when a post is scheduled three days ahead, then it is published at that time and its signed webhook delivered', async () => {
    const { post, webhook } = await bed.postWithWebhook();
    const publishAt = new Date((await bed.env.currentTimeMs()) + 3 * day);
    const handle = await startPublication(post.id);
    const plan = await handle.executeUpdate(planUpdate, { args: [{ publishAt: publishAt.toISOString(), connectionIds: [] }] });
    expect(plan).toMatchObject({ scheduled: true, targetIds: [] });
    expect(await reload(post.id)).toMatchObject({ status: 'scheduled', scheduledAt: publishAt });
    // What the Temporal UI shows for the sleeping run (its current details, read by the UI's metadata query).
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe(`Waiting until ${publishAt.toISOString().slice(0, 19).replace('T', ' ')} UTC to publish`);

    const result = await handle.result();
    expect(result.outcome).toBe('published');
    expect(Math.abs(Date.parse(result.publishedAt!) - publishAt.getTime())).toBeLessThan(5_000);
    const published = await reload(post.id);
    expect(published.status).toBe('published');
    expect(published.publishedAt?.toISOString()).toBe(result.publishedAt);

    const { event, eventDelivery } = await eventDeliveryOf(post.id);
    expect(await deliveryResult(eventDelivery, webhook.id)).toMatchObject({ outcome: 'delivered', attempts: 1 });
    expect(bed.receiver.deliveries).toHaveLength(1);
    const [received] = bed.receiver.deliveries;
    expect(received!.signatureValid).toBe(true);
    expect(received!.body).toEqual({
      event: 'post.published',
      workspaceId: post.workspaceId,
      timestamp: event.createdAt.toISOString(),
      data: { id: post.id, title: post.title, status: 'published', imageUrl: null, publishedAt: result.publishedAt },
    });
    // The 1.0 baseline: a publication takes no patch, so it records no patch marker.
    const { events } = await handle.fetchHistory();
    expect(events!.filter((historyEvent) => historyEvent.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
  });

  it('when the publication is moved earlier and then later, then it happens at the last time given', async () => {
    const { post } = await bed.postWithWebhook();
    const now = await bed.env.currentTimeMs();
    const handle = await startPublication(post.id);
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + 3 * day).toISOString(), connectionIds: [] }] });
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + day).toISOString(), connectionIds: [] }] });
    const final = new Date(now + 2 * day);
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: final.toISOString(), connectionIds: [] }] });
    expect((await reload(post.id)).scheduledAt).toEqual(final);
    const result = await handle.result();
    expect(Math.abs(Date.parse(result.publishedAt!) - final.getTime())).toBeLessThan(5_000);
  });

  it('when the publication is re-planned more times than one run keeps, then it continues as new, stays the same publication and publishes once at the last time given', async () => {
    const { post } = await bed.postWithWebhook();
    const now = await bed.env.currentTimeMs();
    const publicationId = randomUUID();
    const handle = await bed.client.workflow.start(postPublication, {
      workflowId: workflowIds.postPublication(post.id),
      taskQueue: bed.taskQueue,
      args: [{ postId: post.id, publicationId }],
    });
    for (let plan = 1; plan <= plansPerRun + 1; plan += 1) {
      await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + day + plan * 60_000).toISOString(), connectionIds: [] }] });
    }
    const final = new Date(now + 2 * day);
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: final.toISOString(), connectionIds: [] }] });

    const result = await handle.result();
    expect(Math.abs(Date.parse(result.publishedAt!) - final.getTime())).toBeLessThan(5_000);
    const firstRun = await bed.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
    const events = await bed.orm.em.fork().find(WorkspaceEvent, { postId: post.id });
    expect(events.map((event) => event.sourceId)).toEqual([`publication-${publicationId}`]);
  });

  it('when a scheduled post is made a draft before its time (as a generate, render or restore does), then nothing is published', async () => {
    const { post } = await bed.postWithWebhook();
    const handle = await startPublication(post.id);
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date((await bed.env.currentTimeMs()) + 3 * day).toISOString(), connectionIds: [] }] });
    await bed.orm.em.fork().nativeUpdate(Post, { id: post.id }, { status: 'draft' });
    expect(await handle.result()).toEqual({ outcome: 'cancelled', publishedAt: null });
    expect(await reload(post.id)).toMatchObject({ status: 'draft', publishedAt: null });
    expect(await bed.orm.em.fork().count(WorkspaceEvent, { postId: post.id })).toBe(0);
  });

  it('when the publication is cancelled, then nothing is published and the post is a draft again', async () => {
    const { post } = await bed.postWithWebhook();
    const handle = await startPublication(post.id);
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date((await bed.env.currentTimeMs()) + 3 * day).toISOString(), connectionIds: [] }] });
    await handle.executeUpdate(cancelUpdate);
    expect(await handle.result()).toEqual({ outcome: 'cancelled', publishedAt: null });
    expect(await reload(post.id)).toMatchObject({ status: 'draft', scheduledAt: null, publishedAt: null });
    expect(await bed.orm.em.fork().count(WorkspaceEvent, { postId: post.id })).toBe(0);
  });
});

describe('publishing now', () => {
  /** Starts the post's publication as the api does (Update-with-Start), planned to publish now to no connection. */
  async function publishNowWithOneCall(postId: string) {
    const start = new WithStartWorkflowOperation(postPublication, {
      workflowId: workflowIds.postPublication(postId),
      taskQueue: bed.taskQueue,
      args: [{ postId, publicationId: randomUUID() }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const plan = bed.client.workflow.executeUpdateWithStart(planUpdate, { args: [{ publishAt: null, connectionIds: [] }], startWorkflowOperation: start });
    return { plan, handle: await start.workflowHandle() };
  }

  it('when the first plan publishes now to no connection, then it answers with the result, in one workflow task with one local activity and no hand-over when no webhook takes the event', async () => {
    const post = await createPostFixture(bed.orm);
    const { plan, handle } = await publishNowWithOneCall(post.id);
    const { result } = await plan;
    expect(result).toEqual({ outcome: 'published', publishedAt: expect.any(String) });
    expect(await handle.result()).toEqual(result);
    expect(await reload(post.id)).toMatchObject({ status: 'published', publishedAt: new Date(result!.publishedAt!) });
    expect(await bed.orm.em.fork().count(WorkspaceEvent, { postId: post.id, type: 'post.published' })).toBe(1);

    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    // The settle's marker only: no plan recorded, no event handed over.
    expect(events.flatMap((event) => event.markerRecordedEventAttributes?.markerName ?? [])).toEqual(['core_local_activity']);
    expect(events.some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
  });

  it('when the post was deleted before it is published now, then the plan fails as the post deleted (a 404 for the api) and so does the run', async () => {
    const { plan, handle } = await publishNowWithOneCall(randomUUID());
    const refusal = await failureOf(plan, WorkflowUpdateFailedError);
    expect(updateFailureAsProblem(refusal, 'Post')).toMatchObject({ code: 'not-found' });
    await failureOf(handle.result(), WorkflowFailedError);
  });
});

describe('postPublication branches, with stub activities', () => {
  /** Runs a publication of a made-up post on a worker with `stubs`, planned by `request` (and steered by `then`). */
  async function publicationWith(
    stubs: Partial<Activities>,
    request: PublicationRequest,
    then?: (handle: WorkflowHandle<typeof postPublication>) => Promise<void>,
  ) {
    return bed.runWith(stubs, async (taskQueue) => {
      const handle = await startMadeUpPublication(bed, taskQueue);
      await handle.executeUpdate(planUpdate, { args: [request] });
      await then?.(handle);
      const result = await handle.result();
      const { startTime, closeTime } = await handle.describe();
      return { result, serverTimeMs: closeTime!.getTime() - startTime.getTime() };
    });
  }

  it('when the publication is cancelled while it sleeps, then nothing is published, settled or handed over', async () => {
    const called: string[] = [];
    const record = <T>(name: string, value: T) => {
      called.push(name);
      return Promise.resolve(value);
    };
    const stubs: Partial<Activities> = {
      planPublication: (input) => Promise.resolve({ publishAt: input.publishAt, scheduled: true, targetIds: ['target'] }),
      cancelPublication: () => record('cancelPublication', undefined),
      publishToTarget: () => record('publishToTarget', undefined),
      settlePublication: () => record('settlePublication', { outcome: 'published' as const, eventId: 'event', subscribed: true }),
      startEventDelivery: () => record('startEventDelivery', { started: true }),
    };
    const publishAt = new Date((await bed.env.currentTimeMs()) + 3 * day).toISOString();
    const { result, serverTimeMs } = await publicationWith(stubs, { publishAt, connectionIds: ['connection'] }, (handle) => handle.executeUpdate(cancelUpdate));
    expect(result).toEqual({ outcome: 'cancelled', publishedAt: null });
    expect(called).toEqual(['cancelPublication']);
    // It ends when cancelled, not when its timer would have fired.
    expect(serverTimeMs).toBeLessThan(day);
  });

  it('when a cancel is still being recorded as the publication comes due, then the run hears it out and publishes nothing', async () => {
    const called: string[] = [];
    const record = <T>(name: string, value: T) => {
      called.push(name);
      return Promise.resolve(value);
    };
    let markStarted!: () => void;
    let release!: () => void;
    const started = new Promise<void>((resolveStarted) => (markStarted = resolveStarted));
    const released = new Promise<void>((resolveReleased) => (release = resolveReleased));
    const stubs: Partial<Activities> = {
      planPublication: (input) => record('planPublication', { publishAt: input.publishAt, scheduled: true, targetIds: ['target'] }),
      // The cancel's activity is still running when the publication comes due.
      cancelPublication: async () => {
        called.push('cancelPublication');
        markStarted();
        await released;
      },
      publishToTarget: () => record('publishToTarget', undefined),
      settlePublication: () => record('settlePublication', { outcome: 'published' as const, eventId: null, subscribed: false }),
    };
    const publishAt = new Date((await bed.env.currentTimeMs()) + day).toISOString();
    const { result } = await publicationWith(stubs, { publishAt, connectionIds: ['connection'] }, async (handle) => {
      const cancelling = handle.executeUpdate(cancelUpdate);
      await started;
      // The publication comes due (a plan for now) while the cancel is still being recorded.
      await handle.executeUpdate(planUpdate, { args: [{ publishAt: null, connectionIds: ['connection'] }] });
      release();
      await cancelling;
    });
    expect(result).toEqual({ outcome: 'cancelled', publishedAt: null });
    expect(called).toEqual(['planPublication', 'cancelPublication', 'planPublication']);
  });

  it('when the first plan fails, then the run ends with nothing published instead of waiting for a plan for ever', async () => {
    const handle = await runPublicationWhoseFirstPlanFails(bed);
    expect(await handle.result()).toEqual({ outcome: 'cancelled', publishedAt: null });
  });

  it('when one target is refused and another stays unreachable, then each is marked failed with its reason and the post is settled with all of them', async () => {
    const reasons = new Map<string, string>();
    let unreachableAttempts = 0;
    let settled: SettlePublicationInput | undefined;
    const stubs: Partial<Activities> = {
      planPublication: (input) => Promise.resolve({ publishAt: input.publishAt, scheduled: false, targetIds: ['published', 'refused', 'unreachable'] }),
      publishToTarget: ({ targetId }) => {
        if (targetId === 'refused')
          return Promise.reject(ApplicationFailure.nonRetryable('Mastodon rejected the post (422): Text too long', failureTypes.socialRejected));
        if (targetId !== 'unreachable') return Promise.resolve(undefined);
        unreachableAttempts += 1;
        return Promise.reject(ApplicationFailure.retryable('Bluesky could not be reached (ECONNREFUSED)', failureTypes.socialUnavailable));
      },
      markTargetFailed: ({ targetId, reason }) => {
        reasons.set(targetId, reason);
        return Promise.resolve();
      },
      settlePublication: (input) => {
        settled = input;
        return Promise.resolve({ outcome: 'published', eventId: null, subscribed: false });
      },
    };
    const { result } = await publicationWith(stubs, { publishAt: null, connectionIds: ['a', 'b', 'c'] });
    expect(result.outcome).toBe('published');
    expect(Object.fromEntries(reasons)).toEqual({
      refused: 'Mastodon rejected the post (422): Text too long',
      unreachable: 'The platform could not be reached after several attempts; try again later.',
    });
    expect(unreachableAttempts).toBe(10);
    expect(settled).toMatchObject({ targetIds: ['published', 'refused', 'unreachable'], publishedAt: result.publishedAt });
  });
});

describe('webhook delivery', () => {
  it('when the receiver is down for six hours, then the event arrives after it recovers, once, with the same delivery id', async () => {
    const { post, webhook } = await bed.postWithWebhook();
    await bed.receiver.down();
    const { eventDelivery } = await publishNow(post.id);

    const downSince = await bed.env.currentTimeMs();
    await bed.env.sleep('6 hours');
    await bed.receiver.up();
    const outcome = await deliveryResult(eventDelivery, webhook.id);

    expect(outcome.outcome).toBe('delivered');
    expect((await bed.env.currentTimeMs()) - downSince).toBeGreaterThanOrEqual(6 * 60 * 60 * 1000);
    expect(bed.receiver.deliveries).toHaveLength(1);
    expect(bed.receiver.deliveries[0]!.deliveryId).toBe(outcome.deliveryId);
    expect(bed.receiver.deliveries[0]!.signatureValid).toBe(true);

    const log = await bed.orm.em.fork().find(WebhookDelivery, { webhookId: webhook.id }, { orderBy: { attempt: 'asc' } });
    expect(log.length).toBe(outcome.attempts);
    expect(log.length).toBeGreaterThanOrEqual(6);
    expect(new Set(log.map((attempt) => attempt.deliveryId))).toEqual(new Set([outcome.deliveryId]));
    expect(log.slice(0, -1).every((attempt) => !attempt.succeeded && attempt.statusCode === null)).toBe(true);
    expect(log.at(-1)).toMatchObject({ succeeded: true, statusCode: 200 });
  });

  it('when the receiver answers 410, then the webhook is deactivated and the next event starts no delivery at all', async () => {
    const { post, webhook } = await bed.postWithWebhook();
    bed.receiver.respondWith(410);
    const { eventDelivery } = await publishNow(post.id);
    expect(await deliveryResult(eventDelivery, webhook.id)).toMatchObject({ outcome: 'gone', attempts: 1 });
    expect((await bed.orm.em.fork().findOneOrFail(Webhook, webhook.id)).isActive).toBe(false);

    const second = await createPostFixture(bed.orm);
    await bed.orm.em.fork().nativeUpdate(Post, { id: second.id }, { workspaceId: post.workspaceId });
    // No active webhook takes the second event, so no delivery workflow starts for it.
    const { eventDelivery: none } = await publishNow(second.id);
    await expect(none.describe()).rejects.toThrow(WorkflowNotFoundError);
    expect(bed.receiver.deliveries).toHaveLength(1);
  });

  it('when the workspace has webhooks but none active takes the event, then the publish starts no delivery; one that does starts it', async () => {
    const post = await createPostFixture(bed.orm);
    await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: bed.receiver.url, secret: webhookSecret, events: 'post.failed' });
    const inactive = await createWebhookFixture(bed.orm, bed.config, {
      workspaceId: post.workspaceId,
      url: bed.receiver.url,
      secret: webhookSecret,
      events: 'post.published',
    });
    await bed.orm.em.fork().nativeUpdate(Webhook, { id: inactive.id }, { isActive: false });
    const { eventDelivery: none } = await publishNow(post.id);
    await expect(none.describe()).rejects.toThrow(WorkflowNotFoundError);

    const taking = await createWebhookFixture(bed.orm, bed.config, {
      workspaceId: post.workspaceId,
      url: bed.receiver.url,
      secret: webhookSecret,
      events: 'post.failed, post.published',
    });
    const second = await createPostFixture(bed.orm);
    await bed.orm.em.fork().nativeUpdate(Post, { id: second.id }, { workspaceId: post.workspaceId });
    const { eventDelivery } = await publishNow(second.id);
    expect(await deliveryResult(eventDelivery, taking.id)).toMatchObject({ outcome: 'delivered', attempts: 1 });
    expect(bed.receiver.deliveries).toHaveLength(1);
  });

  it('when the receiver fails with 500 twice, then the third attempt a few minutes later delivers it', async () => {
    const { post, webhook } = await bed.postWithWebhook();
    bed.receiver.script([500, 503]);
    const { eventDelivery } = await publishNow(post.id);
    expect(await deliveryResult(eventDelivery, webhook.id)).toMatchObject({ outcome: 'delivered', attempts: 3 });
    expect(new Set(bed.receiver.deliveries.map((received) => received.deliveryId)).size).toBe(1);
    const log = await bed.orm.em.fork().find(WebhookDelivery, { webhookId: webhook.id }, { orderBy: { attempt: 'asc' } });
    expect(log.map((attempt) => attempt.statusCode)).toEqual([500, 503, 200]);
  });

  it('when an event goes to three webhooks, one failing twice and one answering 410, then one workflow sends to all three at once and only the failing one waits on the ladder', async () => {
    const post = await createPostFixture(bed.orm);
    const flaky = await startWebhookReceiver({ secret: webhookSecret });
    const leaving = await startWebhookReceiver({ secret: webhookSecret });
    try {
      flaky.script([500, 503]);
      leaving.respondWith(410);
      const steady = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: bed.receiver.url, secret: webhookSecret });
      const failing = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: flaky.url, secret: webhookSecret });
      const gone = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: leaving.url, secret: webhookSecret });
      const { eventDelivery } = await publishNow(post.id);
      const { webhooks } = await eventDelivery.result();

      const outcomes = Object.fromEntries(webhooks.map(({ webhookId, outcome, attempts }) => [webhookId, { outcome, attempts }]));
      expect(outcomes).toEqual({
        [steady.id]: { outcome: 'delivered', attempts: 1 },
        [failing.id]: { outcome: 'delivered', attempts: 3 },
        [gone.id]: { outcome: 'gone', attempts: 1 },
      });
      expect([bed.receiver.deliveries.length, flaky.deliveries.length, leaving.deliveries.length]).toEqual([1, 3, 1]);
      expect(new Set(flaky.deliveries.map((received) => received.deliveryId)).size).toBe(1);
      expect([...bed.receiver.deliveries, ...flaky.deliveries, ...leaving.deliveries].every((received) => received.signatureValid)).toBe(true);
      expect((await bed.orm.em.fork().findOneOrFail(Webhook, gone.id)).isActive).toBe(false);

      // Three rounds (all three webhooks as a local activity, then the failing one twice as activities), two timers,
      // and no other workflow.
      const { events } = await eventDelivery.fetchHistory();
      expect(events!.filter((historyEvent) => historyEvent.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBe(1);
      expect(events!.filter((historyEvent) => historyEvent.activityTaskScheduledEventAttributes).length).toBe(2);
      expect(events!.filter((historyEvent) => historyEvent.timerStartedEventAttributes).length).toBe(2);
    } finally {
      await flaky.close();
      await leaving.close();
    }
  });

  it('when a webhook is deleted while its request is under way, then the round is still logged for the others and the delivery ends', async () => {
    const post = await createPostFixture(bed.orm);
    const slow = await startWebhookReceiver({ secret: webhookSecret });
    try {
      const release = slow.hold();
      const steady = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: bed.receiver.url, secret: webhookSecret });
      const deleted = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: slow.url, secret: webhookSecret });
      const { eventDelivery } = await publishNow(post.id);
      await eventually(() => Promise.resolve(expect(slow.deliveries).toHaveLength(1)));
      await bed.orm.em.fork().nativeDelete(Webhook, { id: deleted.id });
      release();

      // The deleted webhook's attempt is not logged (its log went with it); the round's other rows are.
      const { webhooks } = await eventDelivery.result();
      expect(Object.fromEntries(webhooks.map(({ webhookId, outcome }) => [webhookId, outcome]))).toEqual({
        [steady.id]: 'delivered',
        [deleted.id]: 'delivered',
      });
      const log = await bed.orm.em.fork().find(WebhookDelivery, { eventId: (await eventDeliveryOf(post.id)).event.id });
      expect(log.map((attempt) => [attempt.webhookId, attempt.statusCode])).toEqual([[steady.id, 200]]);
      expect((await bed.orm.em.fork().findOneOrFail(Webhook, steady.id)).lastTriggeredAt).toBeInstanceOf(Date);
    } finally {
      await slow.close();
    }
  });

  it('when a webhook on the ladder is deactivated, then its next rung sends nothing and the delivery ends as skipped', async () => {
    const { post, webhook } = await bed.postWithWebhook();
    bed.receiver.respondWith(503);
    const { eventDelivery } = await publishNow(post.id);
    // Time may skip ahead while the test waits for the publication, so the ladder can be a rung further on by now:
    // whatever was sent before the webhook is deactivated (and a round already under way), nothing is sent after.
    await eventually(() => Promise.resolve(expect(bed.receiver.deliveries.length).toBeGreaterThan(0)));
    await bed.orm.em.fork().nativeUpdate(Webhook, { id: webhook.id }, { isActive: false });
    const sentBefore = bed.receiver.deliveries.length;
    const { webhooks } = await eventDelivery.result();
    const sent = bed.receiver.deliveries.length;
    expect(webhooks).toEqual([{ webhookId: webhook.id, deliveryId: bed.receiver.deliveries[0]!.deliveryId, outcome: 'skipped', attempts: sent }]);
    expect(sent).toBeLessThanOrEqual(sentBefore + 1);
    expect(sent).toBeLessThan(9);
  });
});
