import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { PostVersion } from '../../src/adapters/database/entities/post-version.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { generatePost } from '../../workflows/generate-post.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { createPostFixture } from '../support/post-fixtures.ts';

// A worker is killed (SIGKILL, no goodbye) while the image provider is working on a generation; another worker
// takes over. The generation completes exactly once.

let stability: StabilityServer;

beforeAll(async () => {
  stability = await startStabilityServer();
});
afterAll(() => stability?.close());
const bed = useCrashTestBed(() => ({ STABILITY_API_KEY: stability.apiKey, STABILITY_API_URL: stability.url }));

describe('a worker killed in the middle of a generation', () => {
  // The image as an activity (Stability AI's path: another worker takes over once its heartbeats stop) and as a local
  // activity (the local renderer's path, driven here against the fake provider so that it can be held: the workflow
  // task times out and another worker runs it again).
  it.each([
    ['an activity', false],
    ['a local activity', true],
  ])(
    'when the image is drawn by %s and another worker takes over, then the post gets exactly one new version and one usage item',
    { timeout: 90_000 },
    async (_path, imageRunsLocally) => {
      stability.requests.length = 0;
      const post = await createPostFixture(bed.orm);
      const first = await bed.startWorker();
      const held = stability.hold();
      const handle = await bed.client.workflow.start<typeof generatePost>('generatePost', {
        workflowId: workflowIds.postGenerate(post.id),
        taskQueue: bed.config.temporal.taskQueue,
        args: [{ postId: post.id, generationId: newId(), prompt: post.prompt, promptWasNew: false, format: '1:1', seed: 3, imageRunsLocally }],
      });
      await held.received;
      first.process.kill('SIGKILL');
      await once(first.process, 'exit');
      held.release();

      const second = await bed.startWorker();
      try {
        const result = await handle.result();
        expect(result.versionNumber).toBe(1);
      } finally {
        second.process.kill('SIGTERM');
        await once(second.process, 'exit');
      }

      expect(stability.requests.length).toBe(2);
      const em = bed.orm.em.fork();
      expect(await em.count(PostVersion, { postId: post.id })).toBe(1);
      expect(await em.count(UsageActivity, { postId: post.id, type: 'PostGeneration' })).toBe(1);
      const saved = await em.findOneOrFail(Post, post.id);
      expect(saved.imageKey).toBeTruthy();
    },
  );
});
