import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GeneratedArtwork } from '../../activities/generate-post-image.ts';
import type { Activities } from '../../activities/activity-signatures.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { OrphanedObject } from '../../src/adapters/database/entities/orphaned-object.ts';
import { PostVersion } from '../../src/adapters/database/entities/post-version.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import type { MarkPostFailedInput } from '../../src/domain/posts/mark-post-failed.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { generatePost } from '../../workflows/generate-post.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { eventually } from '../support/eventually.ts';
import { failureOf } from '../support/failure-of.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

const { EventType } = proto.temporal.api.enums.v1;

// The generation workflow against a local server speaking Stability AI's API, on the time-skipping test server:
// retry ladders that take minutes in real life complete at once, and their timing is read from server time.

let bed: WorkflowTestBed;
let stability: StabilityServer;

beforeAll(async () => {
  stability = await startStabilityServer();
  bed = await startWorkflowTestBed({ STABILITY_API_KEY: stability.apiKey, STABILITY_API_URL: stability.url });
  await bed.startWorker();
});
afterAll(async () => {
  await bed?.stop();
  await stability?.close();
});
beforeEach(() => {
  stability.requests.length = 0;
});

async function runGeneration(post: Post) {
  const startedAt = await bed.env.currentTimeMs();
  const outcome = await bed.client.workflow
    .execute(generatePost, {
      workflowId: workflowIds.postGenerate(post.id),
      taskQueue: bed.taskQueue,
      args: [{ postId: post.id, generationId: newId(), prompt: post.prompt, promptWasNew: false, format: '16:9', seed: 7, imageRunsLocally: false }],
    })
    .then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
  return { ...outcome, serverTimeMs: (await bed.env.currentTimeMs()) - startedAt };
}

/** The history event types of a generation, as the Temporal UI names them. */
async function eventTypesOf(postId: string): Promise<string[]> {
  const history = await bed.client.workflow.getHandle(workflowIds.postGenerate(postId)).fetchHistory();
  return (history.events ?? []).map((event) => EventType[event.eventType ?? 0] ?? String(event.eventType));
}

async function stateOf(postId: string) {
  const em = bed.orm.em.fork();
  return {
    post: await em.findOneOrFail(Post, postId),
    versions: await em.count(PostVersion, { postId }),
    usage: await em.count(UsageActivity, { postId }),
    failedEvents: await em.find(WorkspaceEvent, { postId, type: 'post.failed' }),
  };
}

describe('generatePost with Stability AI', () => {
  it('when the provider answers at once, then the post gets a 1920×1080 image, one version and one usage item', async () => {
    const post = await createPostFixture(bed.orm, { withBrandKit: true });
    const { result, error } = await runGeneration(post);
    expect(error).toBeUndefined();
    expect(result?.respond).toContain('Stability AI');
    expect(stability.requests).toHaveLength(1);
    expect(stability.requests[0]!.fields).toMatchObject({ aspect_ratio: '16:9', seed: '7', output_format: 'png' });
    expect(stability.requests[0]!.fields.prompt).toContain('#224466');
    const state = await stateOf(post.id);
    expect(state.post).toMatchObject({ status: 'draft', format: '16:9' });
    expect(state.post.imageKey).toBeTruthy();
    expect([state.versions, state.usage]).toEqual([1, 1]);
    // Saved by the image activity itself: no local activity (a marker) and no activity after it.
    const events = await eventTypesOf(post.id);
    expect(events.filter((type) => type.startsWith('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') || type === 'EVENT_TYPE_MARKER_RECORDED')).toEqual([
      'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
    ]);
  });

  it('when the save inside the image activity fails, then the workflow saves the same artwork and the provider is asked once', async () => {
    const post = await createPostFixture(bed.orm);
    // The first version insert fails as a lock timeout would (SQLSTATE 55P03: retryable, "the database is busy"). A
    // sequence counts the inserts, because the failure rolls back everything transactional.
    const connection = bed.orm.em.getConnection();
    await connection.execute(`
      create sequence version_inserts;
      create function fail_first_save() returns trigger language plpgsql as $$
      begin
        if nextval('version_inserts') = 1 then raise exception 'lock timeout (test fault)' using errcode = '55P03'; end if;
        return new;
      end $$;
      create trigger fail_first_save before insert on post_versions for each row execute function fail_first_save();`);
    try {
      const { result, error } = await runGeneration(post);
      expect(error).toBeUndefined();
      expect(result?.versionNumber).toBe(1);
      expect(await connection.execute('select last_value from version_inserts')).toEqual([{ last_value: '2' }]);
    } finally {
      await connection.execute('drop trigger fail_first_save on post_versions; drop function fail_first_save(); drop sequence version_inserts;');
    }
    expect(stability.requests).toHaveLength(1);
    const state = await stateOf(post.id);
    expect(state.post.status).toBe('draft');
    expect([state.versions, state.usage]).toEqual([1, 1]);
    // Saved on the workflow's own path, a local activity (recorded as a marker) after the image activity.
    expect((await eventTypesOf(post.id)).filter((type) => type === 'EVENT_TYPE_MARKER_RECORDED').length).toBeGreaterThanOrEqual(1);
  });

  it(
    'when the save inside the image activity gets no answer for 5 s, then the workflow saves the artwork and the provider is asked once',
    { timeout: 30_000 },
    async () => {
      const post = await createPostFixture(bed.orm);
      // Another transaction holds the post's row, so the save waits on its lock until the holder lets go.
      const holder = new pg.Client({ connectionString: bed.config.database.url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select id from posts where id = $1 for update', [post.id]);
        const generation = runGeneration(post);
        // The image activity has given up on its save and returned the artwork: only now may the lock go.
        await eventually(async () => expect(await eventTypesOf(post.id)).toContain('EVENT_TYPE_ACTIVITY_TASK_COMPLETED'), 25_000);
        await holder.query('commit');
        const { result, error } = await generation;
        expect(error).toBeUndefined();
        expect(result?.versionNumber).toBe(1);
      } finally {
        await holder.end();
      }
      expect(stability.requests).toHaveLength(1);
      expect([(await stateOf(post.id)).versions, (await stateOf(post.id)).usage]).toEqual([1, 1]);
      // The activity gave up waiting and the workflow's own save (a local activity, a marker) took over.
      expect((await eventTypesOf(post.id)).filter((type) => type === 'EVENT_TYPE_MARKER_RECORDED').length).toBeGreaterThanOrEqual(1);
    },
  );

  it('when an attempt runs after an earlier one saved the generation, then the provider is not asked again and the saved version comes back', async () => {
    const post = await createPostFixture(bed.orm);
    const activities = bed.activities();
    const input = { postId: post.id, generationId: newId(), prompt: post.prompt, format: '1:1' as const, seed: 5, saveToPost: { promptWasNew: false } };
    const first: GeneratedArtwork = await new MockActivityEnvironment({ attempt: 1 }).run(activities.generatePostImage, input);
    expect(first.saved?.versionNumber).toBe(1);
    // The first attempt's answer was lost; Temporal runs the activity again.
    const second: GeneratedArtwork = await new MockActivityEnvironment({ attempt: 2 }).run(activities.generatePostImage, input);
    expect(second.saved?.versionNumber).toBe(1);
    expect(second.saved?.respond).toContain('Stability AI');
    expect(second.artworkKey).toBe(first.artworkKey);
    expect(stability.requests).toHaveLength(1);
    expect([(await stateOf(post.id)).versions, (await stateOf(post.id)).usage]).toEqual([1, 1]);
    expect(await bed.orm.em.fork().count(OrphanedObject, { objectKey: first.artworkKey })).toBe(0);
  });

  it('when the provider answers 429 twice, then each retry waits at least 60 s and the third attempt succeeds', async () => {
    stability.script([{ status: 429 }, { status: 429 }]);
    const post = await createPostFixture(bed.orm);
    const { error, serverTimeMs } = await runGeneration(post);
    expect(error).toBeUndefined();
    expect(stability.requests).toHaveLength(3);
    expect(serverTimeMs).toBeGreaterThanOrEqual(120_000);
    expect((await stateOf(post.id)).versions).toBe(1);
  });

  it('when the provider fails with 500 twice, then it is retried on the ladder (5 s, then 10 s) and succeeds', async () => {
    stability.script([{ status: 500 }, { status: 500 }]);
    const post = await createPostFixture(bed.orm);
    const { error, serverTimeMs } = await runGeneration(post);
    expect(error).toBeUndefined();
    expect(stability.requests).toHaveLength(3);
    // Only a lower bound: the test server may jump its clock forward after the run (to the activity's timeout).
    expect(serverTimeMs).toBeGreaterThanOrEqual(15_000);
  });

  it.each([
    [
      '403 content moderation',
      { status: 403, name: 'content_moderation', errors: ['Your request was flagged by our content moderation system'] },
      'content_moderation',
    ],
    ['400 bad request', { status: 400, name: 'bad_request', errors: ['prompt: too long'] }, '400'],
    ['413 payload too large', { status: 413 }, '413'],
    ['422 unprocessable', { status: 422, name: 'invalid_language', errors: ['English only'] }, '422'],
    ['CONTENT_FILTERED', { kind: 'content-filtered' as const }, 'CONTENT_FILTERED'],
  ])('when the provider refuses with %s, then nothing is retried and the post is failed with the reason', async (_case, response, reason) => {
    stability.script([response]);
    const post = await createPostFixture(bed.orm);
    const { error } = await runGeneration(post);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(stability.requests).toHaveLength(1);
    const state = await stateOf(post.id);
    expect(state.post.status).toBe('failed');
    expect(state.post.failureReason).toContain(reason);
    expect(state.failedEvents).toHaveLength(1);
    expect(state.failedEvents[0]!.details).toMatchObject({ reason: state.post.failureReason, status: 'failed', title: post.title });
    expect([state.versions, state.usage]).toEqual([0, 0]);
    expect(((error as WorkflowFailedError).cause as Error).message).toBe(state.post.failureReason);
  });

  it('when the provider stays down, then after 8 attempts the post is failed saying so in our words', async () => {
    stability.script(Array.from({ length: 8 }, () => ({ status: 503 })));
    const post = await createPostFixture(bed.orm);
    const { error } = await runGeneration(post);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(stability.requests).toHaveLength(8);
    expect((await stateOf(post.id)).post.failureReason).toBe('The image provider could not be reached after several attempts; try again later.');
  });
});

describe('generatePost branches, with stub activities', () => {
  const refusal = 'Stability AI refused the prompt (403 content_moderation): flagged';

  /** Generates for a made-up post on a worker with `stubs`; returns how the workflow failed. */
  async function failedGeneration(stubs: Partial<Activities>, imageRunsLocally = false) {
    const generation = bed.runWith(stubs, (taskQueue) =>
      bed.client.workflow.execute(generatePost, {
        workflowId: `generate-${randomUUID()}`,
        taskQueue,
        args: [{ postId: randomUUID(), generationId: newId(), prompt: 'A lighthouse', promptWasNew: false, format: '1:1', seed: 1, imageRunsLocally }],
      }),
    );
    return (await failureOf(generation, WorkflowFailedError)).cause;
  }

  it.each([
    ['an activity', false],
    ['a local activity', true],
  ])(
    'when the provider refuses (the image drawn by %s), then the post is marked failed with its reason, the event handed over, nothing saved, and the workflow fails saying why',
    async (_path, imageRunsLocally) => {
      const called: string[] = [];
      let marked: MarkPostFailedInput | undefined;
      const stubs: Partial<Activities> = {
        generatePostImage: () => {
          called.push('generatePostImage');
          return Promise.reject(ApplicationFailure.nonRetryable(refusal, failureTypes.imageRejected));
        },
        markPostFailed: (input) => {
          marked = input;
          return Promise.resolve({ eventId: 'event' });
        },
        startEventDelivery: ({ eventId }) => {
          called.push(`startEventDelivery ${eventId}`);
          return Promise.resolve({ started: true });
        },
        saveGeneratedImage: () => Promise.reject(new Error('a refused generation saves nothing')),
      };
      const cause = await failedGeneration(stubs, imageRunsLocally);
      expect(cause).toMatchObject({ type: failureTypes.generationFailed, message: refusal });
      expect(marked?.reason).toBe(refusal);
      expect(called).toEqual(['generatePostImage', 'startEventDelivery event']);
    },
  );

  it("when the event cannot be handed over, then the generation still fails with the provider's reason", async () => {
    const stubs: Partial<Activities> = {
      generatePostImage: () => Promise.reject(ApplicationFailure.nonRetryable(refusal, failureTypes.imageRejected)),
      markPostFailed: () => Promise.resolve({ eventId: 'event' }),
      startEventDelivery: () => Promise.reject(ApplicationFailure.nonRetryable('the event row is gone', failureTypes.unexpected)),
    };
    expect(await failedGeneration(stubs)).toMatchObject({ type: failureTypes.generationFailed, message: refusal });
  });
});
