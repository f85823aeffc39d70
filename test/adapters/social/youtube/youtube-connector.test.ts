import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import { callSessionStore } from '../../../../src/adapters/social/call-session-store.ts';
import type { OAuthPlatform } from '../../../../src/adapters/social/oauth-platform.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SocialPost,
  type YouTubeCredentials,
} from '../../../../src/adapters/social/social-connector.ts';
import { untilPacificMidnightMs } from '../../../../src/adapters/social/youtube/youtube-api.ts';
import { createYouTubeConnector, type YouTubeConnector } from '../../../../src/adapters/social/youtube/youtube-connector.ts';
import { createYouTubeOAuth } from '../../../../src/adapters/social/youtube/youtube-oauth.ts';
import { startYouTubeServer, type YouTubeServer } from '../../../fakes/youtube-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { foundPost } from '../../../support/found-post.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let youtube: YouTubeServer;
let oauth: OAuthPlatform;
let connector: YouTubeConnector;
let clip: Buffer;
const chunkBytes = 256 * 1024;
const callbackUrl = 'https://content.example/oauth/youtube/callback';

function credentials(): YouTubeCredentials {
  return {
    platform: 'youtube',
    accessToken: youtube.issueAccessToken(),
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    channelId: youtube.channel.id,
  };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: `Harbour lights ${randomUUID()}`,
    idempotencyKey: randomUUID(),
    video: socialVideoOf(clip, { width: 108, height: 192, durationMs: 3_000 }),
    ...overrides,
  };
}

const sessionPuts = () => youtube.requests.filter((request) => request.method === 'PUT');
const sessionsOpened = () => youtube.requests.filter((request) => request.method === 'POST' && request.path === '/upload/youtube/v3/videos');

beforeAll(async () => {
  youtube = await startYouTubeServer();
  const endpoints = { allowPrivateNetworks: true, apiUrl: youtube.url, authorizeUrl: youtube.authorizeUrl, tokenUrl: youtube.tokenUrl };
  oauth = createYouTubeOAuth(endpoints);
  connector = createYouTubeConnector({ ...endpoints, timeoutMs: 2_000, uploadChunkBytes: chunkBytes, dailyQuota: 10_000 });
  // Three seconds of noise: more than two parts of 256 KiB.
  clip = makeVideo({ width: 108, height: 192, seconds: 3, noise: true });
  expect(clip.length).toBeGreaterThan(2 * chunkBytes);
});
beforeEach(() => {
  youtube.requests.length = 0;
  youtube.videoProcessingChecks = 0;
  youtube.quotaUsed = 0;
  youtube.noChannel = false;
});
afterAll(() => youtube?.close());

describe('YouTube OAuth, through Google', () => {
  it('when the person consents, then the code is exchanged with PKCE for offline tokens, and a refresh keeps the refresh token', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(oauth.authorizationUrl({ client: youtube.client, callbackUrl, state: 'the-state', codeChallenge: challenge }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
      state: 'the-state',
    });
    const consented = await got(url.toString(), { followRedirect: false, throwHttpErrors: false });
    const code = new URL(consented.headers.location ?? '').searchParams.get('code') ?? '';

    const tokens = await oauth.exchangeCode({ client: youtube.client, callbackUrl, code, codeVerifier: verifier });
    expect(tokens.refreshToken).toBe(youtube.currentRefreshToken());
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: youtube.channel.customUrl, accountId: youtube.channel.id });

    const refreshed = await oauth.refresh({ client: youtube.client, tokens });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    // Google hands out no new refresh token: the connection keeps the one it has (refresh-connection.ts).
    expect(refreshed.refreshToken).toBeUndefined();
    expect(youtube.currentRefreshToken()).toBe(tokens.refreshToken);
  });

  it('when the Google account has no channel, then the connection is refused saying so', async () => {
    youtube.noChannel = true;
    const error = await failureOf(oauth.account(youtube.issueAccessToken()), SocialRejectedError);
    expect(error.reason).toContain('no YouTube channel');
  });
});

describe('YouTube connector', () => {
  it('when a post has a video, then it goes up in 256 KiB parts of one session, YouTube processes it between attempts, and the video has the title and description', async () => {
    youtube.videoProcessingChecks = 1;
    const sessions = callSessionStore();
    const post = postWith({ text: `Harbour lights\nBoats at night, <live> ${randomUUID()}` });
    const processing = await failureOf(connector.publish(credentials(), post, sessions), MediaStillProcessing);
    expect(processing.detail).toBe('Uploaded the video; YouTube is processing it.');
    const published = await connector.publish(credentials(), post, sessions);

    const video = youtube.videos.find((candidate) => candidate.id === published.externalPostId)!;
    expect(video.bytes.equals(clip)).toBe(true);
    expect(video).toMatchObject({ title: 'Harbour lights', description: post.text.replace(/[<>]/g, ''), privacyStatus: 'public', madeForKids: false });
    expect(sessionsOpened()).toHaveLength(1);
    expect(sessionPuts()).toHaveLength(Math.ceil(clip.length / chunkBytes));
    expect(published.url).toBe(`https://www.youtube.com/watch?v=${published.externalPostId}`);
  });

  it('when an attempt stops in the middle of a part, then the next asks the session where it stands and sends from there: one video, at most one part sent twice', async () => {
    youtube.holdChunkFrom = chunkBytes;
    const sessions = callSessionStore();
    const post = postWith();
    const before = youtube.bytesReceivedTotal();
    await failureOf(connector.publish(credentials(), post, sessions), SocialUnavailableError);
    const published = await connector.publish(credentials(), post, sessions);

    expect(sessionsOpened()).toHaveLength(1);
    expect(youtube.videos.filter((video) => video.title === post.text)).toHaveLength(1);
    expect(youtube.videos.find((video) => video.id === published.externalPostId)!.bytes.equals(clip)).toBe(true);
    expect(youtube.bytesReceivedTotal() - before).toBeLessThanOrEqual(clip.length + chunkBytes);
  });

  it('when the answer to the last part is lost, then the look-up finds the video the session made, and a retry posts nothing again', async () => {
    youtube.dropAnswerOfCompletingPut = true;
    const sessions = callSessionStore();
    const post = postWith();
    await failureOf(connector.publish(credentials(), post, sessions), SocialOutcomeUnknownError);
    const made = youtube.videos.filter((video) => video.title === post.text);
    expect(made).toHaveLength(1);

    expect(foundPost(await connector.findPublished(credentials(), post.idempotencyKey, sessions)).externalPostId).toBe(made[0]!.id);
    expect(await connector.findPublished(credentials(), randomUUID(), sessions)).toBe(notSent);
    expect((await connector.publish(credentials(), post, sessions)).externalPostId).toBe(made[0]!.id);
    expect(youtube.videos.filter((video) => video.title === post.text)).toHaveLength(1);
  });

  it("when the project's daily quota is used up, then the publication waits until midnight Pacific time", async () => {
    youtube.quotaUsed = youtube.quotaLimit;
    const error = await failureOf(connector.publish(credentials(), postWith(), callSessionStore()), SocialRateLimitedError);
    expect(error.message).toContain('quotaExceeded');
    expect(Math.abs(error.retryAfterMs - untilPacificMidnightMs())).toBeLessThan(60_000);
  });

  it('when the token is revoked, then YouTube refuses it (401) and the reason says to connect again', async () => {
    const error = await failureOf(connector.publish({ ...credentials(), accessToken: 'revoked' }, postWith(), callSessionStore()), SocialRejectedError);
    expect(error.reason).toContain('connect the account again');
  });

  it('when the post has no video, then nothing is sent and the refusal says YouTube takes only videos', async () => {
    const error = await failureOf(connector.publish(credentials(), postWith({ video: undefined }), callSessionStore()), SocialRejectedError);
    expect(error.reason).toContain('only videos');
    expect(youtube.requests).toHaveLength(0);
  });
});
