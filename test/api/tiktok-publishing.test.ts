import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TikTokCredentials } from '../../src/adapters/social/social-connector.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startTikTokServer, type TikTokServer } from '../fakes/tiktok-server.ts';
import { connectThroughOAuth, storedCredentials, tikTokEnv } from '../support/oauth-connections.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { publishedTarget, redirectUri, startOAuthPlatformApp, type OAuthPlatformApp } from '../support/oauth-platform-app.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// TikTok as a platform of the service, against its fake: connected through the whole OAuth round trip, its privacy
// level chosen, then videos published through the worker (processing, a refusal, a rate limit, a lost answer).

type Connection = Schemas['SocialConnection'];

let tiktok: TikTokServer;
let service: OAuthPlatformApp;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;
let clip: Buffer;

beforeAll(async () => {
  tiktok = await startTikTokServer();
  service = await startOAuthPlatformApp(tikTokEnv(tiktok), 'TikTok');
  ({ app, workspace, projectId } = service);
  clip = makeVideo({ width: 108, height: 192, seconds: 4 });
});
afterAll(async () => {
  await app?.stop();
  await tiktok?.close();
});
beforeEach(() => {
  tiktok.processingPolls = 0;
});

const videoPost = (title: string) => postWithVideo(app, workspace, { projectId, title, bytes: clip, durationMs: 4_000 });
const publishedTo = (postId: string) => publishedTarget(service, postId, connectionId);

describe('TikTok through OAuth, and its privacy level', () => {
  it('when the person consents, then the callback makes a connection with no privacy level yet, whose tokens are sealed', async () => {
    const back = await connectThroughOAuth(workspace.client, { platform: 'tiktok', redirectUri });
    expect(back.searchParams.get('error')).toBeNull();
    connectionId = back.searchParams.get('connectionId')!;
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({
      platform: 'tiktok',
      accountName: tiktok.account.displayName,
      serverUrl: tiktok.url,
      status: 'active',
      destination: null,
    });
    const stored = await storedCredentials<TikTokCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored.openId).toBe(tiktok.account.openId);
    expect(JSON.stringify(connection.body)).not.toContain(stored.accessToken);
  });

  it('when no privacy level is chosen, then the dry run says a destination is needed, and shows what creator_info says of the account', async () => {
    const id = await videoPost('Privacy first');
    tiktok.creator.commentDisabled = true;
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId], dryRun: true });
    tiktok.creator.commentDisabled = false;
    expect(preview.body[0]!.problems).toContainEqual({ code: 'destination_needed', message: expect.stringContaining('No privacy level has been chosen') });
    expect(preview.body[0]!.facts).toEqual([
      { what: 'privacy levels offered', value: 'Everyone, Friends, Only me' },
      { what: 'longest video', value: `${tiktok.creator.maxVideoPostDurationSec} s` },
      { what: 'comments', value: "off in the creator's settings: posts keep it off" },
      { what: 'duets', value: 'may be on' },
      { what: 'stitches', value: 'may be on' },
    ]);
    expect(tiktok.publishes).toHaveLength(0);
  });

  it('when the privacy levels are listed and one is chosen, then the connection shows it', async () => {
    const listed = await workspace.client.get<Schemas['SocialDestinationList']>(`/social-connections/${connectionId}/destinations`);
    expect(listed.body).toEqual({
      what: 'privacy level',
      data: [
        { id: 'PUBLIC_TO_EVERYONE', name: 'Everyone' },
        { id: 'MUTUAL_FOLLOW_FRIENDS', name: 'Friends' },
        { id: 'SELF_ONLY', name: 'Only me' },
      ],
    });
    const chosen = await workspace.client.call<Connection>('PATCH', `/social-connections/${connectionId}`, { body: { destination: 'PUBLIC_TO_EVERYONE' } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.destination).toEqual({ id: 'PUBLIC_TO_EVERYONE', name: 'Everyone' });
  });
});

describe('publishing to TikTok', () => {
  it('when the post has a video, then it is uploaded once, waited for, and the target links the public post', async () => {
    tiktok.processingPolls = 1;
    const target = await publishedTo(await videoPost('Harbour lights on TikTok'));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'published']);
    const post = tiktok.posts.find((candidate) => candidate.id === target.externalPostId)!;
    expect(post.video.equals(clip)).toBe(true);
    expect(post.privacyLevel).toBe('PUBLIC_TO_EVERYONE');
  });

  it('when TikTok fails the video, then the target fails in its words', async () => {
    tiktok.failNextPublish = 'duration_check_failed';
    const target = await publishedTo(await videoPost('Refused by TikTok'));
    expect(target.status).toBe('Failed');
    expect(target.errorMessage).toContain("the video's length is outside what TikTok allows (fail_reason duration_check_failed)");
  });

  it('when TikTok rate-limits the init once, then the next attempt comes no sooner than its wait, and one post is made', async () => {
    tiktok.script('init', [{ status: 429, retryAfter: '2' }]);
    const target = await publishedTo(await videoPost('Tide tables on TikTok'));
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'published']);
    const [limited, published] = target.attempts;
    expect(Date.parse(limited!.nextAttemptAt!) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(limited!.nextAttemptAt!));
    expect(tiktok.posts.filter((post) => post.title === 'Tide tables on TikTok')).toHaveLength(1);
  });

  it('when the answer to the last chunk is lost, then the retry finds the post and the target is Published once', async () => {
    tiktok.dropAnswerOfNextChunk();
    const target = await publishedTo(await videoPost('Lost answer on TikTok'));
    expect(target.status).toBe('Published');
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
    const made = tiktok.posts.filter((post) => post.title === 'Lost answer on TikTok');
    expect(made).toHaveLength(1);
    expect(target.externalPostId).toBe(made[0]!.id);
  });

  it("when the connection's privacy level is Only me, then the published attempt says only the creator sees the post, and why", async () => {
    const chosen = await workspace.client.call('PATCH', `/social-connections/${connectionId}`, { body: { destination: 'SELF_ONLY' } });
    expect(chosen.status).toBe(200);
    try {
      const target = await publishedTo(await videoPost('Only me on TikTok'));
      expect(target.status).toBe('Published');
      expect(tiktok.posts.find((post) => post.title === 'Only me on TikTok')!.privacyLevel).toBe('SELF_ONLY');
      expect(target.attempts.at(-1)!.detail).toMatch(/^Published on the platform\. Visible only to the creator .*audited/);
    } finally {
      await workspace.client.call('PATCH', `/social-connections/${connectionId}`, { body: { destination: 'PUBLIC_TO_EVERYONE' } });
    }
  });
});
