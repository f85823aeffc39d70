import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PublishTarget } from '../../../src/adapters/database/entities/publish-target.ts';
import { VideoJob } from '../../../src/adapters/database/entities/video-job.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';
import type { VideoRules } from '../../../src/adapters/social/platform-declaration.ts';
import { createFilesystemStorage } from '../../../src/adapters/object-storage/filesystem-storage.ts';
import { targetMediaOf } from '../../../src/domain/publishing/post-media.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// What a publish target sends is decided at its first attempt and kept: a later attempt (after a retry, or a wait
// while the platform processes the video) sends the same video even when a newer one has finished meanwhile, and a
// target that sent its image never switches to a video. Against a real PostgreSQL.

const database = useTestDatabase();
const takesVideo: VideoRules = { types: ['video/mp4'], maxBytes: 100_000_000 };
// Every job here has its size recorded, so storage (a real, empty one) is not read.
const storage = createFilesystemStorage({
  directory: mkdtempSync(join(inject('scratchDir'), 'target-media-')),
  urlSigningSecret: 'target-media'.repeat(3),
  defaultTtlSeconds: 60,
  baseUrl: () => 'http://test',
});

async function postWithTarget(media: 'image' | 'video' | null = null) {
  const post = await createPostFixture(database.orm);
  const em = database.orm.em.fork();
  const target = em.create(PublishTarget, {
    postId: post.id,
    connectionId: newId(),
    platform: 'mastodon',
    publicationId: `post-publish-${post.id}`,
    status: 'Publishing',
    idempotencyKey: newId(),
    media,
  });
  await em.flush();
  return { post, targetId: target.id };
}

async function finishVideo(post: { id: string; workspaceId: string }, completedAt: Date): Promise<string> {
  const em = database.orm.em.fork();
  const videoKey = `workspaces/${post.workspaceId}/posts/${post.id}/video-${newId()}.mp4`;
  em.create(VideoJob, {
    workspaceId: post.workspaceId,
    postId: post.id,
    format: '9:16',
    videoKey,
    videoBytes: 2_000_000,
    durationMs: 6_000,
    status: 'done',
    progress: 100,
    completedAt,
  });
  await em.flush();
  return videoKey;
}

async function mediaOfTarget(targetId: string, rules: VideoRules | null = takesVideo) {
  const em = database.orm.em.fork();
  const images = { types: ['image/png' as const], maxBytes: 1_000_000, maxCount: 1, altText: false };
  return targetMediaOf({ storage }, em, await em.findOneOrFail(PublishTarget, targetId), { images, video: rules });
}

describe('the media a publish target sends', () => {
  it('when a newer video finishes after the first attempt chose one, then every later attempt sends the first', async () => {
    const { post, targetId } = await postWithTarget();
    const first = await finishVideo(post, new Date(Date.now() - 60_000));
    expect(await mediaOfTarget(targetId)).toMatchObject({ media: 'video', video: { key: first, bytes: 2_000_000, width: 1080, height: 1920 } });
    await finishVideo(post, new Date());
    expect(await mediaOfTarget(targetId)).toMatchObject({ media: 'video', video: { key: first } });
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, targetId)).toMatchObject({ media: 'video', videoKey: first });
  });

  it('when the first attempt sent the image, then a video finished meanwhile does not change it', async () => {
    const { post, targetId } = await postWithTarget();
    expect(await mediaOfTarget(targetId)).toEqual({ media: 'image' });
    await finishVideo(post, new Date());
    expect(await mediaOfTarget(targetId)).toEqual({ media: 'image' });
  });

  it('when the chosen video was deleted before a later attempt, then that attempt is refused rather than sending another', async () => {
    const { post, targetId } = await postWithTarget('video');
    const key = await finishVideo(post, new Date());
    await mediaOfTarget(targetId);
    await database.orm.em.fork().nativeDelete(VideoJob, { videoKey: key });
    expect(await mediaOfTarget(targetId)).toMatchObject({ media: 'refused', reason: "The post's video was deleted before it was sent." });
  });
});
