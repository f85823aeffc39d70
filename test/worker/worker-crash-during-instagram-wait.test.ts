import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../src/adapters/database/entities/publish-target-attempt.ts';
import { createStorage } from '../../src/adapters/object-storage/create-storage.ts';
import type { InstagramCredentials } from '../../src/adapters/social/social-connector.ts';
import { planPublication } from '../../src/domain/publishing/publication-workflow.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { startInstagramServer, type InstagramServer } from '../fakes/instagram-server.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { eventually } from '../support/eventually.ts';
import { createOAuthConnectionFixture, instagramEnv } from '../support/oauth-connections.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { storeFinishedVideo } from '../support/post-with-video.ts';
import { makeVideo } from '../support/video-files.ts';

// A Reel whose worker is killed with SIGKILL while Instagram processes it: the publication is waiting on its
// workflow's timer between status checks of the container it noted. The next worker checks that same container and
// publishes it: one container, one post.

let instagram: InstagramServer;
// No api runs here to serve the worker's signed links (PUBLIC_URL/files/…), which Instagram fetches the Reel from:
// this serves the stored files instead (the signature is the api's to check, and other tests check it).
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  instagram = await startInstagramServer();
  files = createServer((request, response) => {
    const key = decodeURIComponent(new URL(request.url ?? '/', 'http://files').pathname.replace(/^\/files\//, ''));
    void createStorage(bed.config.storage, () => filesUrl)
      .get(key)
      .then((stored) => {
        if (!stored) return void response.writeHead(404).end();
        response.writeHead(200, { 'content-type': stored.contentType, 'content-length': String(stored.size) });
        stored.body.pipe(response);
      });
  });
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await instagram?.close();
  files?.close();
});
const bed = useCrashTestBed(() => ({ ...instagramEnv(instagram), PUBLIC_URL: filesUrl }));

describe('a worker killed while Instagram processes a Reel', () => {
  it('when another worker takes over, then it checks the same container and the Reel is posted once', { timeout: 240_000 }, async () => {
    const { orm, config, client } = bed;
    const post = await createPostFixture(orm);
    const video = makeVideo({ width: 108, height: 192, seconds: 4 });
    const storage = createStorage(config.storage, () => 'http://test');
    await storeFinishedVideo(orm, storage, post, { bytes: video, durationMs: 4_000 });
    const credentials: InstagramCredentials = {
      platform: 'instagram',
      accessToken: instagram.issueToken('long'),
      expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      userId: instagram.account.userId,
    };
    const connection = await createOAuthConnectionFixture(orm, config, {
      workspaceId: post.workspaceId,
      credentials,
      serverUrl: instagram.url,
      accountName: `@${instagram.account.username}`,
      accountId: instagram.account.userId,
    });
    // Processing outlasts the first worker: it is killed after the first check found the Reel in progress.
    instagram.processingPolls = 3;
    const target = () => orm.em.fork().findOneOrFail(PublishTarget, { connectionId: connection.id });
    const outcomes = async () =>
      (await orm.em.fork().find(PublishTargetAttempt, { targetId: (await target()).id }, { orderBy: { attempt: 'asc' } })).map((attempt) => attempt.outcome);

    const first = await bed.startWorker();
    const deps = assembleDeps(config, { orm, temporal: client, storage, logger: createLogger({ level: 'silent', name: 'test' }) });
    await planPublication(deps, post, { publishAt: null, connectionIds: [connection.id] });
    try {
      await eventually(async () => expect(await outcomes()).toContain('processing'), 90_000);
    } finally {
      first.process.kill('SIGKILL');
      await once(first.process, 'exit');
    }

    const second = await bed.startWorker();
    try {
      await eventually(async () => expect(await target()).toMatchObject({ status: 'Published' }), 120_000);
    } finally {
      second.process.kill('SIGTERM');
      await once(second.process, 'exit');
    }

    const containers = instagram.containers.filter((container) => container.caption === post.title);
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({ mediaType: 'REELS', status: 'PUBLISHED' });
    const made = instagram.media.filter((media) => media.containerId === containers[0]!.id);
    expect(made).toHaveLength(1);
    expect(await target()).toMatchObject({ externalPostId: made[0]!.id });
    expect((await outcomes()).at(-1)).toBe('published');
    expect((await outcomes()).filter((outcome) => outcome === 'published')).toHaveLength(1);
  });
});
