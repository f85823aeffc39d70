import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { VideoJob } from '../../src/adapters/database/entities/video-job.ts';
import { readJobState, type VideoJobState } from '../../src/domain/video/video-job-state.ts';
import { renderLocalArtwork } from '../../src/adapters/artwork/local-artwork.ts';
import { createStorage } from '../../src/adapters/object-storage/create-storage.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { generateVideo } from '../../workflows/generate-video.ts';
import { eventually } from '../support/eventually.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { createPostFixture } from '../support/post-fixtures.ts';

// A worker is killed (SIGKILL) while it encodes a video. Its heartbeats stop, Temporal gives the activity to
// another worker, which makes the video again from the start; the post gets it exactly once.

const bed = useCrashTestBed();

describe('a worker killed in the middle of a video', () => {
  it(
    'when another worker takes over, then the job reports the retry, ends done, and the post has one video and one usage item',
    { timeout: 120_000 },
    async () => {
      const post = await createPostFixture(bed.orm);
      const storage = createStorage(bed.config.storage, () => 'http://unused');
      const artworkKey = `workspaces/${post.workspaceId}/posts/${post.id}/artwork-test.png`;
      await storage.put(artworkKey, await renderLocalArtwork({ prompt: post.prompt, seed: 1, format: '9:16', colors: {} }), 'image/png');
      const em = bed.orm.em.fork();
      await em.nativeUpdate(Post, post.id, { artworkKey, format: '9:16' });
      const job = em.create(VideoJob, { workspaceId: post.workspaceId, postId: post.id, format: '9:16' });
      await em.flush();

      const first = await bed.startWorker();
      const handle = await bed.client.workflow.start<typeof generateVideo>('generateVideo', {
        workflowId: workflowIds.videoJob(job.id),
        taskQueue: bed.config.temporal.taskQueue,
        args: [{ jobId: job.id }],
      });
      const stateNow = () => readJobState(bed.client, job);
      await eventually(async () => expect((await stateNow()).message).toMatch(/^Encoding the video: \d+%$/), 30_000);
      first.process.kill('SIGKILL');
      await once(first.process, 'exit');

      const second = await bed.startWorker();
      try {
        const retried: VideoJobState = await eventually(async () => {
          const state = await stateNow();
          expect(state.message).toMatch(/\(attempt 2, after: The work took longer than allowed \(a worker stopped answering/);
          return state;
        }, 60_000);
        expect(retried.status).toBe('running');
        expect((await handle.result()).videoKey).toMatch(/\.mp4$/);
      } finally {
        second.process.kill('SIGTERM');
        await once(second.process, 'exit');
      }

      const after = bed.orm.em.fork();
      const saved = await after.findOneOrFail(VideoJob, job.id);
      expect(saved.videoKey).toBeTruthy();
      expect(await storage.get(saved.videoKey!)).not.toBeNull();
      expect(await after.count(UsageActivity, { postId: post.id, type: 'VideoGeneration' })).toBe(1);
      expect((await after.findOneOrFail(Post, post.id)).hasVideo).toBe(true);
      expect(await readJobState(bed.client, saved)).toMatchObject({ status: 'done', error: null });
    },
  );
});
