import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { YouTubeCredentials } from '../../src/adapters/social/social-connector.ts';
import { untilPacificMidnightMs } from '../../src/adapters/social/youtube/youtube-api.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startYouTubeServer, type YouTubeServer } from '../fakes/youtube-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { connectThroughOAuth, createOAuthConnectionFixture, storedCredentials, youTubeEnv } from '../support/oauth-connections.ts';
import { postWithVideo } from '../support/post-with-video.ts';
import { publishAndWait } from '../support/published-targets.ts';
import { publishedTarget, redirectUri, startOAuthPlatformApp, type OAuthPlatformApp } from '../support/oauth-platform-app.ts';
import type { TestApp } from '../support/test-app.ts';
import { makeVideo } from '../support/video-files.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// YouTube as a platform of the service, against its fake: connected through Google's whole OAuth round trip, then
// the post's video uploaded through the worker (in parts, processed, refused, rate-limited, its last answer lost),
// and a post without a video refused before anything is sent.

type Connection = Schemas['SocialConnection'];

let youtube: YouTubeServer;
let service: OAuthPlatformApp;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;
let clip: Buffer;

beforeAll(async () => {
  youtube = await startYouTubeServer();
  service = await startOAuthPlatformApp(
    // This file's uploads, 1,600 units each, pass the default 10,000 a day: its quota is tested on an app of its own.
    { ...youTubeEnv(youtube), YOUTUBE_UPLOAD_CHUNK_KIB: '256', YOUTUBE_DAILY_QUOTA: '100000' },
    'YouTube',
  );
  ({ app, workspace, projectId } = service);
  clip = makeVideo({ width: 108, height: 192, seconds: 3, noise: true });
});
afterAll(async () => {
  await app?.stop();
  await youtube?.close();
});
beforeEach(() => {
  youtube.videoProcessingChecks = 0;
});

const publishedTo = (postId: string) => publishedTarget(service, postId, connectionId);
const videoPost = (title: string) => postWithVideo(app, workspace, { projectId, title, bytes: clip, durationMs: 3_000 });

describe('YouTube through OAuth', () => {
  it('when the person consents, then the callback makes a connection to their channel with an offline refresh token', async () => {
    const back = await connectThroughOAuth(workspace.client, { platform: 'youtube', redirectUri });
    expect(back.searchParams.get('error')).toBeNull();
    connectionId = back.searchParams.get('connectionId')!;
    const connection = await workspace.client.get<Connection>(`/social-connections/${connectionId}`);
    expect(connection.body).toMatchObject({ platform: 'youtube', accountName: youtube.channel.customUrl, status: 'active', destination: null });
    const stored = await storedCredentials<YouTubeCredentials>(app.api.services.orm, app.config, connectionId);
    expect(stored).toMatchObject({ channelId: youtube.channel.id, refreshToken: youtube.currentRefreshToken() });
  });
});

describe('publishing to YouTube', () => {
  it("when the post has a video, then it is uploaded in parts of one session, YouTube's processing is waited out, and the target links the video", async () => {
    youtube.videoProcessingChecks = 1;
    const target = await publishedTo(await videoPost('Harbour lights on YouTube'));
    expect(target).toMatchObject({ status: 'Published', errorMessage: null, externalUrl: `https://www.youtube.com/watch?v=${target.externalPostId}` });
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'published']);
    const video = youtube.videos.find((candidate) => candidate.id === target.externalPostId)!;
    expect(video).toMatchObject({ title: 'Harbour lights on YouTube', privacyStatus: 'public' });
    expect(video.bytes.equals(clip)).toBe(true);
  });

  it('when the post has only an image, then the dry run says YouTube needs its video, and the publication fails saying so, sending nothing', async () => {
    const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'No video', prompt: 'Boats at night', projectId })).body.id;
    expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId], dryRun: true });
    expect(preview.body[0]!.problems).toContainEqual({ code: 'video_required', message: expect.stringContaining('takes only video') });
    const before = youtube.requests.length;
    const target = await publishedTo(id);
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('takes only video') });
    expect(youtube.requests.slice(before).filter((request) => request.path.startsWith('/upload/'))).toHaveLength(0);
  });

  it('when YouTube refuses the upload, then the target fails after one attempt in its words', async () => {
    youtube.script('videos_insert', [{ status: 400 }]);
    const target = await publishedTo(await videoPost('Refused by YouTube'));
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringMatching(/^YouTube refused the video \(400\)/) });
    expect(target.attempts).toEqual([expect.objectContaining({ outcome: 'refused', nextAttemptAt: null })]);
  });

  it('when YouTube rate-limits the upload once, then the next attempt is due after its wait and comes no sooner, and one video is made', async () => {
    youtube.script('videos_insert', [{ status: 429, retryAfter: '2' }]);
    const target = await publishedTo(await videoPost('Tide tables on YouTube'));
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'published']);
    const [limited, published] = target.attempts;
    expect(Date.parse(limited!.nextAttemptAt!) - Date.parse(limited!.at)).toBeGreaterThanOrEqual(2_000);
    expect(Date.parse(published!.at)).toBeGreaterThanOrEqual(Date.parse(limited!.nextAttemptAt!));
    expect(youtube.videos.filter((video) => video.title === 'Tide tables on YouTube')).toHaveLength(1);
  });

  it('when the answer to the last part is lost after YouTube made the video, then the retry asks the session, finds it, and the target is Published once', async () => {
    youtube.dropAnswerOfCompletingPut = true;
    const target = await publishedTo(await videoPost('Lost answer on YouTube'));
    expect(target.status).toBe('Published');
    expect(target.attempts.map((attempt) => attempt.outcome)).toEqual(['unknown', 'published']);
    const made = youtube.videos.filter((video) => video.title === 'Lost answer on YouTube');
    expect(made).toHaveLength(1);
    expect(target.externalPostId).toBe(made[0]!.id);
  });

  it("when the connection's settings say unlisted and made for kids, then the video is uploaded so, and the attempt says who may see it", async () => {
    const set = await workspace.client.call<Schemas['SocialConnection']>('PATCH', `/social-connections/${connectionId}`, {
      body: { settings: { visibility: 'unlisted', madeForKids: true } },
    });
    expect(set.status).toBe(200);
    expect(set.body.settings).toEqual({ visibility: 'unlisted', madeForKids: true });
    try {
      const target = await publishedTo(await videoPost('Unlisted on YouTube'));
      expect(youtube.videos.find((video) => video.id === target.externalPostId)).toMatchObject({ privacyStatus: 'unlisted', madeForKids: true });
      expect(target.attempts.at(-1)!.detail).toBe('Published on the platform. Visible only to people with its link (unlisted).');
    } finally {
      await workspace.client.call('PATCH', `/social-connections/${connectionId}`, { body: { settings: { visibility: 'public', madeForKids: false } } });
    }
  });

  it('when a setting is asked of a connection whose platform does not take it, or a value YouTube has not, then 400 names it and nothing changes', async () => {
    const x = await createOAuthConnectionFixture(app.api.services.orm, app.config, {
      workspaceId: workspace.id,
      credentials: { platform: 'x', accessToken: 'token', expiresAt: new Date(Date.now() + 3_600_000).toISOString(), userId: '1' },
      serverUrl: 'https://api.x.com',
      accountName: '@alice',
      accountId: '1',
    });
    const refused = await workspace.client.call('PATCH', `/social-connections/${x.id}`, { body: { settings: { visibility: 'unlisted' } } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ location: 'body', path: 'settings.visibility', message: expect.stringContaining('X connections') }] });
    const invalid = await workspace.client.call('PATCH', `/social-connections/${connectionId}`, { body: { settings: { visibility: 'hidden' } } });
    expect(invalid.status).toBe(400);
    expect((await workspace.client.get<Schemas['SocialConnection']>(`/social-connections/${x.id}`)).body.settings).toEqual({});
  });

  it('when Google has not audited the app, then YouTube locks the video private, and the published attempt says so and why', async () => {
    youtube.unverifiedApp = true;
    try {
      const target = await publishedTo(await videoPost('Locked private on YouTube'));
      expect(target.status).toBe('Published');
      expect(youtube.videos.find((video) => video.id === target.externalPostId)!.privacyStatus).toBe('private');
      expect(target.attempts.at(-1)!.detail).toMatch(/^Published on the platform\. Visible only to the channel owner: YouTube locked the video private.*audit/);
    } finally {
      youtube.unverifiedApp = false;
    }
  });
});

describe("YouTube's daily quota, counted by the service", () => {
  // An app of its own, its database counting from nothing, with room for two uploads' 1,600 units but not the list
  // calls that check on their processing besides.
  let quotaApp: TestApp;
  let quotaWorkspace: TestWorkspace;
  let quotaProjectId: string;
  let quotaConnectionId: string;

  beforeAll(async () => {
    ({
      app: quotaApp,
      workspace: quotaWorkspace,
      projectId: quotaProjectId,
    } = await startAppWithWorkspace({
      env: { ...youTubeEnv(youtube), YOUTUBE_UPLOAD_CHUNK_KIB: '256', YOUTUBE_DAILY_QUOTA: '3200', API_WAIT_SECONDS: '1' },
      project: 'YouTube quota',
    }));
    expect((await quotaWorkspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
    const back = await connectThroughOAuth(quotaWorkspace.client, { platform: 'youtube', redirectUri });
    quotaConnectionId = back.searchParams.get('connectionId')!;
  });
  afterAll(async () => {
    await quotaApp?.stop();
  });

  const post = (title: string) => postWithVideo(quotaApp, quotaWorkspace, { projectId: quotaProjectId, title, bytes: clip, durationMs: 3_000 });
  const dryRun = async (postId: string) =>
    (
      await quotaWorkspace.client.post<Schemas['PublishPreview'][]>(`/posts/${postId}/publish-social`, {
        connectionIds: [quotaConnectionId],
        dryRun: true,
      })
    ).body[0]!;

  it('when a video was uploaded, then the dry run shows the units it spent, without asking YouTube', async () => {
    const what = 'YouTube Data API units today';
    const first = await post('First of the day');
    expect((await dryRun(first)).limits).toEqual([{ what, used: 0, limit: 3200 }]);
    const [target] = await publishAndWait(quotaWorkspace.client, first, { connectionIds: [quotaConnectionId] });
    expect(target!.status).toBe('Published');
    // videos.insert's 1,600 (the fake charges Google's other figure, 100, so its count is not ours) and one videos.list.
    const spent = 1601;
    const requestsBefore = youtube.requests.length;
    const preview = await dryRun(await post('Second of the day'));
    expect(preview.limits).toEqual([{ what, used: spent, limit: 3200 }]);
    expect(preview.problems).toContainEqual({ code: 'limit_reached', message: expect.stringContaining('1601 of its 3200') });
    expect(youtube.requests.length).toBe(requestsBefore);
  });

  it("when one more upload would pass the day's quota, then the publication waits until midnight Pacific time, and YouTube receives no upload", async () => {
    const uploadsBefore = youtube.requests.filter((request) => request.path.startsWith('/upload/')).length;
    const id = await post('Over the quota');
    expect((await quotaWorkspace.client.post(`/posts/${id}/publish-social`, { connectionIds: [quotaConnectionId] })).status).toBe(202);
    const attempts = async () => (await quotaWorkspace.client.get<Schemas['PublishTarget'][]>(`/posts/${id}/publish-targets`)).body[0]?.attempts ?? [];
    await expect.poll(async () => (await attempts()).length, { timeout: 30_000, interval: 200 }).toBe(1);
    const [waiting] = await attempts();
    expect(waiting).toMatchObject({ outcome: 'rate_limited' });
    expect(Math.abs(Date.parse(waiting!.nextAttemptAt!) - (Date.parse(waiting!.at) + untilPacificMidnightMs(new Date(waiting!.at))))).toBeLessThan(5_000);
    expect(youtube.requests.filter((request) => request.path.startsWith('/upload/')).length).toBe(uploadsBefore);
  });
});
