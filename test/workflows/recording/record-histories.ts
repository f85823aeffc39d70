import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { ApplicationFailure, WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activities } from '../../../activities/activity-signatures.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';
import { recordOrphanedObjects } from '../../../src/domain/storage/orphaned-objects.ts';
import { failureTypes } from '../../../src/adapters/temporal/failure-types.ts';
import { taskQueues } from '../../../src/adapters/temporal/task-queues.ts';
import { workflowIds } from '../../../src/adapters/temporal/workflow-ids.ts';
import { applyWorkspacePlan } from '../../../workflows/apply-workspace-plan.ts';
import { cleanUpOrphanedObjects, sweepOrphanedObjects } from '../../../workflows/clean-up-orphaned-objects.ts';
import { planChangedSignal, retryingWebhooksQuery } from '../../../workflows/contracts/deliver-event.ts';
import { cancelUpdate, planUpdate } from '../../../workflows/contracts/post-publication.ts';
import { deliverEvent } from '../../../workflows/deliver-event.ts';
import { generatePost } from '../../../workflows/generate-post.ts';
import { generateVideo } from '../../../workflows/generate-video.ts';
import { keepConnectionAlive } from '../../../workflows/keep-connection-alive.ts';
import { plansPerRun, postPublication } from '../../../workflows/post-publication.ts';
import { reconcileSchedules } from '../../../workflows/reconcile-schedules.ts';
import { redeliverWebhook } from '../../../workflows/redeliver-webhook.ts';
import { renderPost } from '../../../workflows/render-post.ts';
import { scheduledGeneration } from '../../../workflows/scheduled-generation.ts';
import { sweepEvents } from '../../../workflows/sweep-events.ts';
import { eventually } from '../../support/eventually.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { runPublicationWhoseFirstPlanFails, startMadeUpPublication } from '../../support/publication-runs.ts';
import { startWebhookTestBed, type WebhookTestBed } from '../../support/webhook-test-bed.ts';

// Records the histories test/workflows/replay-histories.test.ts replays: one run of every workflow type on each of
// its important paths, at today's code, on the time-skipping server with the prebuilt bundle. Real activities where
// a fixture makes the path (a generation, a publication to a webhook, a cleanup), stubs typed by the real ones where
// only a failure or an outside system does. Not part of `npm test` (it rewrites the recorded files); run it before a
// change to a workflow, to record the shape the change must keep replaying (README, "Changing a workflow"):
//   npm exec -- vitest run --config test/workflows/recording/vitest.config.ts

const day = 24 * 60 * 60 * 1000;
let bed: WebhookTestBed;

beforeAll(async () => {
  bed = await startWebhookTestBed();
});
afterAll(() => bed?.stop());

async function record(name: string, handle: WorkflowHandle, runId?: string): Promise<void> {
  const history = await bed.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
  writeFileSync(new URL(`../histories/${name}.json`, import.meta.url), `${historyToJSON(history)}\n`);
}

const generation = (postId: string, imageRunsLocally: boolean) => ({
  postId,
  generationId: newId(),
  prompt: 'A lighthouse in a storm',
  promptWasNew: false,
  format: '1:1' as const,
  seed: 7,
  imageRunsLocally,
});
const refused = () => Promise.reject(ApplicationFailure.nonRetryable('The provider refused the prompt.', failureTypes.generationFailed));

describe('generatePost and renderPost', () => {
  /** A generation of a new post with the real activities, recorded as `name`; returns the post. */
  async function recordGeneration(name: string, imageRunsLocally: boolean) {
    const post = await createPostFixture(bed.orm);
    const handle = await bed.client.workflow.start(generatePost, {
      workflowId: workflowIds.postGenerate(post.id),
      taskQueue: bed.taskQueue,
      args: [generation(post.id, imageRunsLocally)],
    });
    await handle.result();
    await record(name, handle);
    return post;
  }

  it('records a generation drawn in a local activity and saved by it, then a render of it', async () => {
    const post = await recordGeneration('generate-post-drawn-locally', true);
    const render = await bed.client.workflow.start(renderPost, {
      workflowId: workflowIds.postRender(post.id),
      taskQueue: bed.taskQueue,
      args: [{ postId: post.id, renderId: newId() }],
    });
    await render.result();
    await record('render-post-rendered', render);
  });

  it('records a generation drawn by an activity (a provider over the network) and saved by it', async () => {
    await recordGeneration('generate-post-drawn-by-an-activity', false);
  });

  it('records a generation whose image activity could not save it, saved by the workflow', async () => {
    const stubs: Partial<Activities> = {
      generatePostImage: () => Promise.resolve({ artworkKey: 'artwork.png', madeBy: 'stub', seed: 7, width: 1024, height: 1024 }),
      saveGeneratedImage: () => Promise.resolve({ versionNumber: 1, respond: 'saved' }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await bed.client.workflow.start(generatePost, {
        workflowId: `post-generate-${randomUUID()}`,
        taskQueue,
        args: [generation(randomUUID(), false)],
      });
      await handle.result();
      await record('generate-post-saved-by-the-workflow', handle);
    });
  });

  it('records a generation refused by the provider: the post fails and its event is handed over', async () => {
    const stubs: Partial<Activities> = {
      generatePostImage: refused,
      markPostFailed: () => Promise.resolve({ eventId: randomUUID() }),
      startEventDelivery: () => Promise.resolve({ started: true }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await bed.client.workflow.start(generatePost, {
        workflowId: `post-generate-${randomUUID()}`,
        taskQueue,
        args: [generation(randomUUID(), false)],
      });
      await expect(handle.result()).rejects.toThrow();
      await record('generate-post-refused-by-provider', handle);
    });
  });
});

describe('scheduledGeneration', () => {
  const scheduledPost = () =>
    Promise.resolve({
      postId: randomUUID(),
      prompt: 'A lighthouse',
      workspaceId: randomUUID(),
      projectId: randomUUID(),
      title: 'Scheduled',
      imageRunsLocally: true,
    });

  it('records a scheduled run and its child generation', async () => {
    const stubs: Partial<Activities> = {
      createScheduledPost: scheduledPost,
      recordScheduleRun: () => Promise.resolve(),
      generatePostImage: () =>
        Promise.resolve({ artworkKey: 'artwork.png', madeBy: 'stub', seed: 7, width: 1024, height: 1024, saved: { versionNumber: 1, respond: 'saved' } }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await bed.client.workflow.start(scheduledGeneration, {
        workflowId: `scheduled-generation-${randomUUID()}`,
        taskQueue,
        args: [{ scheduleId: randomUUID() }],
      });
      await handle.result();
      await record('scheduled-generation-generated', handle);
    });
  });

  it('records a scheduled run whose child generation failed', async () => {
    const stubs: Partial<Activities> = {
      createScheduledPost: scheduledPost,
      recordScheduleRun: () => Promise.resolve(),
      generatePostImage: refused,
      markPostFailed: () => Promise.resolve({ eventId: null }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await bed.client.workflow.start(scheduledGeneration, {
        workflowId: `scheduled-generation-${randomUUID()}`,
        taskQueue,
        args: [{ scheduleId: randomUUID() }],
      });
      await expect(handle.result()).rejects.toThrow();
      await record('scheduled-generation-child-failed', handle);
    });
  });
});

describe('generateVideo', () => {
  /** A video job on a worker with `stubs`, its encode on a worker of the video queue with `encode`. */
  async function videoJob(
    name: string,
    stubs: Partial<Activities>,
    encode: Activities['renderPostVideo'],
    steer?: (handle: WorkflowHandle<typeof generateVideo>) => Promise<void>,
  ) {
    await bed.runWith(stubs, async (taskQueue) => {
      const videoWorker = await Worker.create({
        connection: bed.env.nativeConnection,
        namespace: bed.config.temporal.namespace,
        taskQueue: taskQueues.video(taskQueue),
        activities: { renderPostVideo: encode },
      });
      await videoWorker.runUntil(async () => {
        const jobId = randomUUID();
        const handle = await bed.client.workflow.start(generateVideo, { workflowId: workflowIds.videoJob(jobId), taskQueue, args: [{ jobId }] });
        await steer?.(handle);
        await handle.result().catch(() => undefined);
        await record(name, handle);
      });
    });
  }
  const ended: Partial<Activities> = { savePostVideo: () => Promise.resolve({ videoKey: 'video.mp4' }), recordVideoJobEnd: () => Promise.resolve() };

  it('records a video job that made its video', async () => {
    await videoJob('generate-video-done', ended, () => Promise.resolve({ videoKey: 'video.mp4', bytes: 1000, notes: [] }));
  });

  it('records a video job whose encode was refused, its end recorded as failed', async () => {
    await videoJob('generate-video-failed', ended, () => Promise.reject(ApplicationFailure.nonRetryable('The post has no image.', failureTypes.videoFailed)));
  });

  it('records a video job cancelled while it encoded, its end recorded as cancelled', async () => {
    let encoding = false;
    const encode = async () => {
      encoding = true;
      for (;;) {
        Context.current().heartbeat();
        await Context.current().sleep(100);
      }
    };
    await videoJob('generate-video-cancelled', ended, encode, async (handle) => {
      await eventually(() => Promise.resolve(expect(encoding).toBe(true)));
      await handle.cancel();
    });
  });
});

describe('postPublication and deliverEvent, with real activities', () => {
  async function publicationOf() {
    const { post, webhook } = await bed.postWithWebhook();
    const handle = await bed.client.workflow.start(postPublication, {
      workflowId: workflowIds.postPublication(post.id),
      taskQueue: bed.taskQueue,
      args: [{ postId: post.id, publicationId: newId() }],
    });
    return { post, webhook, handle };
  }
  async function eventDeliveryOf(postId: string) {
    const event = await eventually(() => bed.orm.em.fork().findOneOrFail(WorkspaceEvent, { postId }));
    return bed.client.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
  }

  it('records a publication published at once, started as the api starts it (Update-with-Start), and the delivery of its event to a webhook', async () => {
    bed.receiver.respondWith(200);
    const { post } = await bed.postWithWebhook();
    const start = new WithStartWorkflowOperation(postPublication, {
      workflowId: workflowIds.postPublication(post.id),
      taskQueue: bed.taskQueue,
      args: [{ postId: post.id, publicationId: newId() }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await bed.client.workflow.executeUpdateWithStart(planUpdate, { args: [{ publishAt: null, connectionIds: [] }], startWorkflowOperation: start });
    const handle = await start.workflowHandle();
    await handle.result();
    await record('post-publication-published-now', handle);
    const delivery = await eventDeliveryOf(post.id);
    await delivery.result();
    await record('deliver-event-delivered', delivery);
  });

  it('records a publication planned, re-planned while it slept, then published by its timer, and a delivery that succeeded on its second attempt', async () => {
    bed.receiver.script([503]);
    const { post, handle } = await publicationOf();
    const now = await bed.env.currentTimeMs();
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + 3 * day).toISOString(), connectionIds: [] }] });
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + day).toISOString(), connectionIds: [] }] });
    await handle.result();
    await record('post-publication-re-planned-then-published', handle);
    const delivery = await eventDeliveryOf(post.id);
    await delivery.result();
    await record('deliver-event-delivered-on-second-attempt', delivery);
  });

  it('records a publication cancelled while it slept', async () => {
    const { handle } = await publicationOf();
    const now = await bed.env.currentTimeMs();
    await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + day).toISOString(), connectionIds: [] }] });
    await handle.executeUpdate(cancelUpdate);
    await handle.result();
    await record('post-publication-cancelled', handle);
  });
});

describe('postPublication and deliverEvent branches, with stub activities', () => {
  const plan = (targetIds: string[]) => () => Promise.resolve({ publishAt: new Date().toISOString(), targetIds, scheduled: false });

  it('records a publication whose first plan failed, ended as cancelled', async () => {
    await record('post-publication-first-plan-failed', await runPublicationWhoseFirstPlanFails(bed));
  });

  it('records a publication to two connections, one of which failed for good', async () => {
    const stubs: Partial<Activities> = {
      planPublication: plan(['target-ok', 'target-refused']),
      publishToTarget: ({ targetId }) =>
        (targetId === 'target-ok'
          ? Promise.resolve({ outcome: 'published' })
          : Promise.reject(ApplicationFailure.nonRetryable('Bad credentials.', failureTypes.socialRejected))) as ReturnType<Activities['publishToTarget']>,
      markTargetFailed: () => Promise.resolve(),
      settlePublication: () => Promise.resolve({ outcome: 'published', eventId: randomUUID(), subscribed: true }),
      startEventDelivery: () => Promise.resolve({ started: true }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await startMadeUpPublication(bed, taskQueue);
      await handle.executeUpdate(planUpdate, { args: [{ publishAt: null, connectionIds: ['ok', 'refused'] }] });
      await handle.result();
      await record('post-publication-one-connection-failed', handle);
    });
  });

  it('records a publication that waited while the platform processed its video, then published', async () => {
    let checks = 0;
    const stubs: Partial<Activities> = {
      planPublication: plan(['target-video']),
      // The first run uploads and answers a wait; the second, after the durable timer, posts.
      publishToTarget: () => Promise.resolve((checks += 1) === 1 ? { waitMs: 60_000, attempts: 1 } : undefined),
      settlePublication: () => Promise.resolve({ outcome: 'published', eventId: randomUUID(), subscribed: true }),
      startEventDelivery: () => Promise.resolve({ started: true }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await startMadeUpPublication(bed, taskQueue);
      await handle.executeUpdate(planUpdate, { args: [{ publishAt: null, connectionIds: ['video'] }] });
      await handle.result();
      expect(checks).toBe(2);
      await record('post-publication-video-processed', handle);
    });
  });

  it('records a publication re-planned past the plans of one run, continued as new', async () => {
    await bed.runWith({ planPublication: plan([]) }, async (taskQueue) => {
      const handle = await startMadeUpPublication(bed, taskQueue);
      const now = await bed.env.currentTimeMs();
      for (let plans = 0; plans < plansPerRun; plans += 1)
        await handle.executeUpdate(planUpdate, { args: [{ publishAt: new Date(now + day + plans * 1000).toISOString(), connectionIds: [] }] });
      const latest = bed.client.workflow.getHandle(handle.workflowId);
      await eventually(async () => expect((await latest.describe()).runId).not.toBe(handle.firstExecutionRunId));
      await record('post-publication-continued-as-new', handle, handle.firstExecutionRunId);
      await latest.terminate('recorded');
    });
  });

  const attempt = (webhookId: string, outcome: 'delivered' | 'failed') => ({
    webhookId,
    deliveryId: `delivery-${webhookId}`,
    outcome,
    statusCode: outcome === 'delivered' ? 200 : 503,
    error: null,
  });

  it('records a delivery exhausted after the whole ladder', { timeout: 120_000 }, async () => {
    await bed.runWith({ deliverToWebhooks: () => Promise.resolve([attempt('failing', 'failed')]) }, async (taskQueue) => {
      const handle = await bed.client.workflow.start(deliverEvent, {
        workflowId: `event-${randomUUID()}`,
        taskQueue,
        args: [{ eventId: randomUUID(), retryWaitsSeconds: bed.config.webhooks.retryWaitsSeconds }],
      });
      await handle.result();
      await record('deliver-event-exhausted', handle);
    });
  });

  it('records a delivery woken on its ladder by a plan change, stopped at its next round', async () => {
    const stubs: Partial<Activities> = {
      deliverToWebhooks: ({ attempt: number }) =>
        Promise.resolve(number === 1 ? [attempt('failing', 'failed')] : [{ ...attempt('failing', 'failed'), outcome: 'not-on-plan' as const }]),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const handle = await bed.client.workflow.start(deliverEvent, {
        workflowId: `event-${randomUUID()}`,
        taskQueue,
        args: [{ eventId: randomUUID(), retryWaitsSeconds: bed.config.webhooks.retryWaitsSeconds }],
      });
      await eventually(async () => expect(await handle.query(retryingWebhooksQuery)).toEqual(['failing']));
      await handle.signal(planChangedSignal);
      await handle.result();
      await record('deliver-event-stopped-by-plan-change', handle);
    });
  });

  it('records a redelivery of a logged delivery', async () => {
    await bed.runWith({ attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered', statusCode: 200, error: null }) }, async (taskQueue) => {
      const deliveryId = randomUUID();
      const handle = await bed.client.workflow.start(redeliverWebhook, {
        workflowId: workflowIds.webhookRedelivery(deliveryId, 2),
        taskQueue,
        args: [{ webhookId: randomUUID(), eventId: randomUUID(), deliveryId, attempt: 2 }],
      });
      await handle.result();
      await record('redeliver-webhook-sent', handle);
    });
  });
});

describe('storage, schedules and plans', () => {
  it("records a cleanup of a deleted post's images and a storage sweep", async () => {
    const keys = Array.from({ length: 2 }, () => `orphans/${randomBytes(6).toString('hex')}.png`);
    for (const key of keys) await bed.storage.put(key, Buffer.from('bytes'), 'image/png');
    const batch = (await recordOrphanedObjects(bed.orm.em.fork(), {
      keys,
      reason: 'post deleted',
      workspaceId: randomUUID(),
      deleteAfter: new Date(Date.now() + 60_000),
    }))!;
    const cleanup = await bed.client.workflow.start(cleanUpOrphanedObjects, {
      workflowId: workflowIds.storageCleanup(batch.batchId),
      taskQueue: bed.taskQueue,
      args: [{ batchId: batch.batchId, deleteAfter: batch.deleteAfter.toISOString() }],
    });
    await cleanup.result();
    await record('clean-up-orphaned-objects-deleted', cleanup);
    const sweep = await bed.client.workflow.start(sweepOrphanedObjects, {
      workflowId: `${workflowIds.storageSweep()}-${randomUUID()}`,
      taskQueue: bed.taskQueue,
      args: [],
    });
    await sweep.result();
    await record('sweep-orphaned-objects-swept', sweep);
  });

  // A stub: the time-skipping server has no Temporal Schedules to reconcile.
  it('records a schedules reconcile that gave a schedule back its Temporal Schedule', async () => {
    const report = { checked: 1, created: ['schedule-a'], updated: [], deleted: [], skipped: [], failed: [] };
    await bed.runWith({ repairScheduleDrift: () => Promise.resolve(report) as ReturnType<Activities['repairScheduleDrift']> }, async (taskQueue) => {
      const handle = await bed.client.workflow.start(reconcileSchedules, {
        workflowId: `${workflowIds.schedulesReconcile()}-${randomUUID()}`,
        taskQueue,
        args: [],
      });
      await handle.result();
      await record('reconcile-schedules-repaired', handle);
    });
  });

  // A stub: a full page takes fifty events left behind, which only an outage leaves.
  it('records an event sweep that handed over a full page, then the rest', async () => {
    const pages: Array<Awaited<ReturnType<Activities['handOverForgottenEvents']>>> = [{ handedOver: 50, nextAfterId: randomUUID() }, { handedOver: 3 }];
    await bed.runWith({ handOverForgottenEvents: () => Promise.resolve(pages.shift()!) }, async (taskQueue) => {
      const handle = await bed.client.workflow.start(sweepEvents, {
        workflowId: `${workflowIds.eventSweep()}-${randomUUID()}`,
        taskQueue,
        args: [],
      });
      expect(await handle.result()).toEqual({ handedOver: 53 });
      await record('sweep-events-two-pages', handle);
    });
  });

  it('records a connection kept alive by two refreshes, then refused by its platform', async () => {
    const twoHours = 2 * 60 * 60 * 1000;
    const outcomes: Array<Awaited<ReturnType<Activities['refreshSocialConnection']>>> = [];
    const stubs: Partial<Activities> = {
      // The token expires two hours after each refresh (X's lifetime) until the platform refuses.
      refreshSocialConnection: ({ asOf }) => {
        const outcome =
          outcomes.length < 2 ? ({ state: 'active', expiresAt: asOf + twoHours } as const) : ({ state: 'needs_reauth', eventId: randomUUID() } as const);
        outcomes.push(outcome);
        return Promise.resolve(outcome);
      },
      startEventDelivery: () => Promise.resolve({ started: true }),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const connectionId = randomUUID();
      const handle = await bed.client.workflow.start(keepConnectionAlive, {
        workflowId: workflowIds.socialConnection(connectionId),
        taskQueue,
        args: [{ connectionId }],
      });
      expect(await handle.result()).toEqual({ ended: 'needs_reauth' });
      await record('keep-connection-alive-refreshed-then-refused', handle);
    });
  });

  it('records a downgrade applied to two schedules and a waiting delivery', async () => {
    const stubs: Partial<Activities> = {
      scheduleIdsOf: () => Promise.resolve(['schedule-a', 'schedule-b']),
      applyPlanToSchedule: () => Promise.resolve(),
      stopWorkspaceDeliveries: () => Promise.resolve(1),
    };
    await bed.runWith(stubs, async (taskQueue) => {
      const workspaceId = randomUUID();
      const handle = await bed.client.workflow.start(applyWorkspacePlan, {
        workflowId: workflowIds.workspacePlan(workspaceId),
        taskQueue,
        args: [{ workspaceId }],
      });
      await handle.result();
      await record('apply-workspace-plan-downgraded', handle);
    });
  });
});
