import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../src/adapters/database/entities/publish-target-attempt.ts';
import { createStorage } from '../../src/adapters/object-storage/create-storage.ts';
import type { YouTubeCredentials } from '../../src/adapters/social/social-connector.ts';
import { planPublication } from '../../src/domain/publishing/publication-workflow.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { startYouTubeServer, type YouTubeServer } from '../fakes/youtube-server.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { eventually } from '../support/eventually.ts';
import { createOAuthConnectionFixture, youTubeEnv } from '../support/oauth-connections.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { storeFinishedVideo } from '../support/post-with-video.ts';
import { makeVideo } from '../support/video-files.ts';

// A post's video to YouTube (a resumable upload in 256 KiB parts) whose worker is killed with SIGKILL while the
// second part is on its way (the fake holds it). The next worker asks the upload session where it stands and sends
// from the byte YouTube reports: one session, one video on YouTube, and no more bytes sent than the video's size and
// the one part the dead worker was sending.

const chunkBytes = 256 * 1024;

let youtube: YouTubeServer;

beforeAll(async () => {
  youtube = await startYouTubeServer();
});
afterAll(() => youtube?.close());
const bed = useCrashTestBed(() => ({ ...youTubeEnv(youtube), YOUTUBE_UPLOAD_CHUNK_KIB: String(chunkBytes / 1024) }));

const sessionPuts = () => youtube.requests.filter((request) => request.method === 'PUT');

describe('a worker killed in the middle of a resumable upload to YouTube', () => {
  it('when another worker takes over, then the upload resumes at the offset YouTube reports, and one video is made', { timeout: 240_000 }, async () => {
    const { orm, config, client } = bed;
    const post = await createPostFixture(orm);
    const video = makeVideo({ width: 108, height: 192, seconds: 3, noise: true });
    expect(video.length).toBeGreaterThan(2 * chunkBytes);
    const storage = createStorage(config.storage, () => 'http://test');
    await storeFinishedVideo(orm, storage, post, { bytes: video, durationMs: 3_000 });
    const credentials: YouTubeCredentials = {
      platform: 'youtube',
      accessToken: youtube.issueAccessToken(3600),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      channelId: youtube.channel.id,
    };
    const connection = await createOAuthConnectionFixture(orm, config, {
      workspaceId: post.workspaceId,
      credentials,
      serverUrl: youtube.url,
      accountName: youtube.channel.customUrl,
      accountId: youtube.channel.id,
    });
    // The part from the second 256 KiB on is held for longer than the test runs.
    youtube.holdChunkFrom = chunkBytes;
    youtube.videoProcessingChecks = 0;
    const before = youtube.bytesReceivedTotal();

    const first = await bed.startWorker();
    const deps = assembleDeps(config, { orm, temporal: client, storage, logger: createLogger({ level: 'silent', name: 'test' }) });
    await planPublication(deps, post, { publishAt: null, connectionIds: [connection.id] });
    try {
      await eventually(() => Promise.resolve(expect(sessionPuts()).toHaveLength(2)), 90_000);
    } finally {
      first.process.kill('SIGKILL');
      await once(first.process, 'exit');
    }

    const second = await bed.startWorker();
    const target = () => orm.em.fork().findOneOrFail(PublishTarget, { connectionId: connection.id });
    try {
      await eventually(async () => expect(await target()).toMatchObject({ status: 'Published' }), 120_000);
    } finally {
      second.process.kill('SIGTERM');
      await once(second.process, 'exit');
    }

    const opened = youtube.requests.filter((request) => request.method === 'POST' && request.path === '/upload/youtube/v3/videos');
    expect(opened).toHaveLength(1);
    // The next worker asked where the session stood (an empty PUT: the look-up, then the publish) before sending the rest.
    const resumed = sessionPuts().slice(2);
    expect(resumed[0]!.headers['content-range']).toBe(`bytes */${video.length}`);
    const sent = resumed.filter((request) => !request.headers['content-range']?.startsWith('bytes */'));
    expect(sent[0]!.headers['content-range']).toMatch(new RegExp(`^bytes ${chunkBytes}-`));
    const made = youtube.videos.filter((candidate) => candidate.title === post.title);
    expect(made).toHaveLength(1);
    expect(made[0]!.bytes.equals(video)).toBe(true);
    expect(await target()).toMatchObject({ externalPostId: made[0]!.id });
    expect(youtube.bytesReceivedTotal() - before).toBeLessThanOrEqual(video.length + chunkBytes);
    const attempts = await orm.em.fork().find(PublishTargetAttempt, { targetId: (await target()).id }, { orderBy: { attempt: 'asc' } });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
  });
});
