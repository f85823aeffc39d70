import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activities } from '../../activities/activity-signatures.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { PostVersion } from '../../src/adapters/database/entities/post-version.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { generatePost } from '../../workflows/generate-post.ts';
import { flakyStorage } from '../support/flaky-storage.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

const { EventType } = proto.temporal.api.enums.v1;

// The generation workflow with the local renderer (no Stability key), whose image is a local activity: drawn
// inside the workflow's first task, with the real activities against PostgreSQL and filesystem storage.

let bed: WorkflowTestBed;

beforeAll(async () => {
  bed = await startWorkflowTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

async function generateLocally(post: Post, activities: Activities) {
  const result = await bed.runWith(activities, (taskQueue) =>
    bed.client.workflow.execute(generatePost, {
      workflowId: workflowIds.postGenerate(post.id),
      taskQueue,
      args: [{ postId: post.id, generationId: newId(), prompt: post.prompt, promptWasNew: false, format: '1:1', seed: 11, imageRunsLocally: true }],
    }),
  );
  const history = await bed.client.workflow.getHandle(workflowIds.postGenerate(post.id)).fetchHistory();
  const events = (history.events ?? []).map((event) => EventType[event.eventType ?? 0] ?? String(event.eventType));
  const markers = (history.events ?? []).flatMap((event) => event.markerRecordedEventAttributes?.markerName ?? []);
  return { result, events, markers };
}

async function savedOf(postId: string) {
  const em = bed.orm.em.fork();
  return {
    post: await em.findOneOrFail(Post, postId),
    versions: await em.count(PostVersion, { postId }),
    usage: await em.count(UsageActivity, { postId, type: 'PostGeneration' }),
  };
}

describe('generatePost with an image that runs locally', () => {
  it('when the local renderer draws it, then the run is one workflow task with a local activity and no activity task, and the post gets one version and one usage item', async () => {
    const post = await createPostFixture(bed.orm);
    const { result, events, markers } = await generateLocally(post, bed.activities());
    expect(result.versionNumber).toBe(1);
    expect(result.respond).toContain('local renderer');
    expect(events.filter((type) => type === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED')).toHaveLength(1);
    // The local activity's marker only: the 1.0 baseline takes no patch.
    expect(markers).toEqual(['core_local_activity']);
    expect(events.some((type) => type.startsWith('EVENT_TYPE_ACTIVITY_TASK'))).toBe(false);
    const saved = await savedOf(post.id);
    expect(saved.post.imageKey).toBeTruthy();
    const stored = await bed.storage.get(saved.post.imageKey!);
    stored?.body.destroy();
    expect(stored?.size).toBeGreaterThan(0);
    expect([saved.versions, saved.usage]).toEqual([1, 1]);
  });

  it('when storage fails the first store, then the local activity is retried, draws the image again and saves it once', { timeout: 30_000 }, async () => {
    const post = await createPostFixture(bed.orm);
    const storage = flakyStorage(bed.storage, 'put', 1);
    const { result, markers } = await generateLocally(post, bed.activities({ storage }));
    expect(result.versionNumber).toBe(1);
    expect(storage.attempts).toBe(2);
    expect(markers).toContain('core_local_activity');
    const saved = await savedOf(post.id);
    expect([saved.versions, saved.usage]).toEqual([1, 1]);
  });
});
