import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../src/adapters/database/entities/publish-target-attempt.ts';
import { createStorage } from '../../src/adapters/object-storage/create-storage.ts';
import { vanishedDetail } from '../../src/domain/publishing/attempt-outcome.ts';
import { planPublication } from '../../src/domain/publishing/publication-workflow.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { useCrashTestBed, type CrashTestBed } from '../support/crash-test-bed.ts';
import { eventually } from '../support/eventually.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { storeFinishedVideo } from '../support/post-with-video.ts';
import { makeVideo } from '../support/video-files.ts';
import { createXConnectionFixture, xEnv, xTokens } from '../support/x-connections.ts';

// A post's video to X (uploaded in 4 MiB parts) whose worker is killed twice with SIGKILL: first while the second
// part is on its way (the fake holds it), then while X processes the finished upload and the publication's workflow
// waits on its timer. The next worker appends from the second part into the same upload, and the one after it asks
// X for the status and posts: one upload, one video and one post on X, and the attempt history shows it all.

let x: XServer;

beforeAll(async () => {
  x = await startXServer();
});
afterAll(() => x?.close());
const bed = useCrashTestBed(() => xEnv(x));

const appends = () => x.requests.filter((request) => request.path.endsWith('/append'));

/** Kills the worker the hard way once `until` holds. */
async function killWhen(worker: Awaited<ReturnType<CrashTestBed['startWorker']>>, until: () => Promise<void>): Promise<void> {
  try {
    await eventually(until, 90_000);
  } finally {
    worker.process.kill('SIGKILL');
    await once(worker.process, 'exit');
  }
}

describe('a worker killed in the middle of a video upload to X, and again while X processes it', () => {
  it(
    'when other workers take over, then the upload resumes at the part X had not acknowledged, and one video is posted once',
    { timeout: 240_000 },
    async () => {
      const { orm, config, client } = bed;
      const post = await createPostFixture(orm);
      const video = makeVideo({ width: 480, height: 854, seconds: 1.5, noise: true });
      const storage = createStorage(config.storage, () => 'http://test');
      await storeFinishedVideo(orm, storage, post, { bytes: video, durationMs: 1_500 });
      const connection = await createXConnectionFixture(orm, config, { workspaceId: post.workspaceId, x, tokens: await xTokens(x) });
      // The second part's request is held for longer than the test runs; X then takes two status checks to process.
      x.script('media_append', [{}, { delayMs: 600_000 }]);
      x.videoProcessingChecks = 2;

      const first = await bed.startWorker();
      const deps = assembleDeps(config, { orm, temporal: client, storage, logger: createLogger({ level: 'silent', name: 'test' }) });
      await planPublication(deps, post, { publishAt: null, connectionIds: [connection.id] });
      await killWhen(first, () => Promise.resolve(expect(appends()).toHaveLength(2)));

      // The heartbeat timeout (5 s in this bundle) shows the dead attempt; the next one appends parts 2 and 3 and finalizes.
      const second = await bed.startWorker();
      const target = () => orm.em.fork().findOneOrFail(PublishTarget, { connectionId: connection.id });
      const attempts = async () => orm.em.fork().find(PublishTargetAttempt, { targetId: (await target()).id }, { orderBy: { attempt: 'asc' } });
      await killWhen(second, async () => expect((await attempts()).map((attempt) => attempt.outcome)).toContain('processing'));

      const third = await bed.startWorker();
      try {
        await eventually(async () => expect(await target()).toMatchObject({ status: 'Published' }), 120_000);
      } finally {
        third.process.kill('SIGTERM');
        await once(third.process, 'exit');
      }

      expect(x.requests.filter((request) => request.path === '/2/media/upload/initialize')).toHaveLength(1);
      // Part 1 once, part 2 held (the dead worker's) then sent again, part 3 once; all into the one upload.
      expect(appends()).toHaveLength(4);
      expect(new Set(appends().map((request) => request.path)).size).toBe(1);
      const tweets = x.tweets.filter((tweet) => tweet.text === post.title);
      expect(tweets).toHaveLength(1);
      const media = x.media.find((candidate) => candidate.id === tweets[0]!.mediaIds[0]);
      expect(media?.bytes.equals(video)).toBe(true);
      expect(await target()).toMatchObject({ externalPostId: tweets[0]!.id });
      const history = (await attempts()).map(({ outcome, detail }) => [outcome, outcome === 'unknown' ? detail : '']);
      expect(history[0]).toEqual(['unknown', vanishedDetail]);
      expect(history.at(-1)).toEqual(['published', '']);
      expect(history.filter(([outcome]) => outcome === 'processing').length).toBeGreaterThanOrEqual(1);
    },
  );
});
