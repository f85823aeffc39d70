import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OrphanedObject } from '../../src/adapters/database/entities/orphaned-object.ts';
import type { InstagramCredentials } from '../../src/adapters/social/social-connector.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startInstagramServer, type InstagramServer } from '../fakes/instagram-server.ts';
import { connectThroughOAuth, instagramEnv, storedCredentials } from '../support/oauth-connections.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { generatedPost, publishedTarget, redirectUri, startOAuthPlatformApp, type OAuthPlatformApp } from '../support/oauth-platform-app.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Instagram as a platform of the service, against its fake: connected through the whole OAuth round trip, then
// posts published through the worker (an image as Instagram takes it, a Reel, a refusal, a rate limit, a lost answer),
// and the dry run showing the image as it would go and the account's publishing limit.

type Connection = Schemas['SocialConnection'];
type Preview = Schemas['PublishPreview'];

let instagram: InstagramServer;
let service: OAuthPlatformApp;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  instagram = await startInstagramServer();
  service = await startOAuthPlatformApp(instagramEnv(instagram), 'Instagram');
  ({ app, workspace, projectId } = service);
  const back = await connectThroughOAuth(workspace.client, { platform: 'instagram', redirectUri });
  expect(back.searchParams.get('error')).toBeNull();
  connectionId = back.searchParams.get('connectionId')!;
});
afterAll(async () => {
  await app?.stop();
  await instagram?.close();
});
beforeEach(() => {
  instagram.processingPolls = 0;
  instagram.publishingLimit.usedBefore = 0;
});

const post = (title: string, format?: '1:1' | '9:16') => generatedPost(service, title, format);
const publishedTo = (postId: string) => publishedTarget(service, postId, connectionId);
const dryRun = async (postId: string) =>
  (await workspace.client.post<Preview[]>(`/posts/${postId}/publish-social`, { connectionIds: [connectionId], dryRun: true })).body[0]!;

describe('Instagram through OAuth', () => {
  it('when the person consents, then the connection is the professional account, kept alive, with its long-lived token sealed', async () => {
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'instagram', accountName: `@${instagram.account.username}`, serverUrl: instagram.url, status: 'active' });
    // Instagram was asked to show its consent window again whoever had granted the app before.
    expect(instagram.requests.find((request) => request.path === '/oauth/authorize')?.query.get('force_reauth')).toBe('true');
    const stored = await storedCredentials<InstagramCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored.userId).toBe(instagram.account.userId);
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
    const keepAlive = await app.api.services.temporal.workflow.getHandle(workflowIds.socialConnection(connectionId)).describe();
    expect(keepAlive.status.name).toBe('RUNNING');
  });
});

describe('the dry run for Instagram', () => {
  it('when the post is 9:16, then its image is shown as the 4:5 JPEG Instagram would get, with the publishing limit as Instagram counts it', async () => {
    instagram.publishingLimit.usedBefore = 7;
    const preview = await dryRun(await post('Tall harbour', '9:16'));
    expect(preview.image).toMatchObject({ type: 'image/jpeg' });
    expect(preview.image!.width / preview.image!.height).toBeCloseTo(0.8, 2);
    expect(preview.limits).toEqual([{ what: 'posts published through the API in the last 24 hours', used: 7, limit: instagram.publishingLimit.total }]);
    // The test's PUBLIC_URL is loopback, which Instagram could not fetch from: said too.
    expect(preview.problems.map((problem) => problem.code)).toEqual(['public_url_unreachable', 'image_reshaped']);
    expect(preview.problems[1]?.message).toBe('The 1080×1920 image would be sent as 1440×1800, padded to a shape the platform takes.');
    expect(instagram.containers.filter((container) => container.caption === 'Tall harbour')).toHaveLength(0);
  });

  it('when the publishing limit is used up, then the dry run says publishing would wait', async () => {
    instagram.publishingLimit.usedBefore = instagram.publishingLimit.total;
    const preview = await dryRun(await post('Over the limit'));
    expect(preview.problems).toContainEqual({ code: 'limit_reached', message: expect.stringContaining('publishing would wait') });
  });
});

describe('publishing to Instagram', () => {
  it('when the post has an image, then Instagram fetches a JPEG copy of it, the post is made once, and the copy is due for deletion', async () => {
    const target = await publishedTo(await post('Harbour lights on Instagram'));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    const made = instagram.media.find((media) => media.id === target.externalPostId);
    expect(made).toMatchObject({ caption: 'Harbour lights on Instagram', mediaType: 'IMAGE' });
    const container = instagram.containers.find((candidate) => candidate.id === made?.containerId);
    expect((await sharp(container?.image?.bytes).metadata()).format).toBe('jpeg');
    expect(container?.altText).toBe('Boats at night');
    const copies = await app.api.services.orm.em.fork().find(OrphanedObject, { objectKey: { $like: '%/copy-%' } });
    expect(copies.map((copy) => copy.deleteAfter.getTime() - Date.now())).toEqual([expect.toSatisfy((ms: number) => ms > 23 * 3_600_000)]);
  });

  it('when the post has a video, then it goes as a Reel, waited for on the timer, and is made once', async () => {
    instagram.processingPolls = 1;
    const clip = makeVideo({ width: 108, height: 192, seconds: 4 });
    const target = await publishedTo(await postWithVideo(app, workspace, { projectId, title: 'Harbour Reel', bytes: clip, durationMs: 4_000 }));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'published']);
    const reels = instagram.containers.filter((container) => container.caption === 'Harbour Reel');
    expect(reels).toHaveLength(1);
    expect(reels[0]).toMatchObject({ mediaType: 'REELS', status: 'PUBLISHED' });
    expect(reels[0]?.video?.equals(clip)).toBe(true);
  });

  it('when Instagram refuses the post, then the target fails after one attempt in its words', async () => {
    instagram.script('create', [{ status: 400, code: 100, message: 'The media type is not supported.' }]);
    const target = await publishedTo(await post('Refused by Instagram'));
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringMatching(/^Instagram refused the post \(400, code 100\)/) });
    expect(target.attempts).toEqual([
      expect.objectContaining({ outcome: 'refused', nextAttemptAt: null, detail: expect.stringContaining('The media type is not supported.') }),
    ]);
  });

  it('when Instagram rate-limits the publication once, then the next attempt comes after its wait and one post is made', async () => {
    instagram.script('publish', [{ status: 429, retryAfter: '2' }]);
    const target = await publishedTo(await post('Tide tables on Instagram'));
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'published']);
    const [limited, published] = target.attempts;
    expect(Date.parse(limited!.nextAttemptAt!) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(limited!.nextAttemptAt!));
    expect(instagram.media.filter((media) => media.caption === 'Tide tables on Instagram')).toHaveLength(1);
  });

  it('when the answer to the publication is lost after Instagram made the post, then the retry finds it and the target is Published once', async () => {
    instagram.timeOutAfterPublishing = 1;
    const target = await publishedTo(await post('Lost answer on Instagram'));
    expect(target.status).toBe('Published');
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
    const made = instagram.media.filter((media) => media.caption === 'Lost answer on Instagram');
    expect(made).toHaveLength(1);
    expect(target.externalPostId).toBe(made[0]!.id);
  });
});
