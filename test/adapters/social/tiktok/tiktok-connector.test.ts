import { randomUUID } from 'node:crypto';
import got from 'got';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callSessionStore } from '../../../../src/adapters/social/call-session-store.ts';
import type { OAuthPlatform } from '../../../../src/adapters/social/oauth-platform.ts';
import {
  MediaStillProcessing,
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SocialPost,
  type TikTokCredentials,
} from '../../../../src/adapters/social/social-connector.ts';
import { createTikTokConnector, type TikTokConnector } from '../../../../src/adapters/social/tiktok/tiktok-connector.ts';
import { createTikTokOAuth } from '../../../../src/adapters/social/tiktok/tiktok-oauth.ts';
import { startTikTokServer, type TikTokServer } from '../../../fakes/tiktok-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { foundPost } from '../../../support/found-post.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let tiktok: TikTokServer;
let oauth: OAuthPlatform;
let connector: TikTokConnector;
/** About 13 MB of noise: two chunks of 5 MiB and more. */
let large: Buffer;
/** A few kilobytes: one chunk. */
let small: Buffer;
const chunkBytes = 5 * 1024 * 1024;
const callbackUrl = 'https://content.example/oauth/tiktok/callback';

function credentials(destination: string | undefined = 'PUBLIC_TO_EVERYONE'): TikTokCredentials {
  return {
    platform: 'tiktok',
    accessToken: tiktok.issueTokens().accessToken,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    openId: tiktok.account.openId,
    destination,
  };
}

function postWith(bytes = small, overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: `Harbour lights ${randomUUID()}`, idempotencyKey: randomUUID(), video: socialVideoOf(bytes, { durationMs: 4_000 }), ...overrides };
}

const uploads = () => tiktok.requests.filter((request) => request.method === 'PUT');
const inits = () => tiktok.requests.filter((request) => request.path === '/v2/post/publish/video/init/');

beforeAll(async () => {
  tiktok = await startTikTokServer();
  const endpoints = { allowPrivateNetworks: true, apiUrl: tiktok.url, authorizeUrl: tiktok.authorizeUrl };
  oauth = createTikTokOAuth(endpoints);
  connector = createTikTokConnector({ ...endpoints, timeoutMs: 5_000, uploadChunkBytes: chunkBytes });
  large = makeVideo({ width: 360, height: 640, seconds: 4, noise: true });
  small = makeVideo({ seconds: 4 });
  expect(large.length).toBeGreaterThan(2 * chunkBytes);
});
beforeEach(() => {
  tiktok.requests.length = 0;
  tiktok.publishes.length = 0;
  tiktok.posts.length = 0;
  tiktok.unaudited = false;
  tiktok.processingPolls = 0;
  tiktok.failNextPublish = undefined;
  tiktok.statusLagsNextFetch = false;
  tiktok.creator.canPost = true;
  tiktok.creator.commentDisabled = false;
  tiktok.creator.privacyLevelOptions = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
});
afterAll(() => tiktok?.close());

describe('TikTok OAuth (Login Kit)', () => {
  it('when the person consents, then the code is exchanged for tokens, the account is read, and each refresh keeps the newest refresh token', async () => {
    const url = new URL(
      oauth.authorizationUrl({
        client: { clientId: tiktok.client.clientKey, clientSecret: tiktok.client.clientSecret },
        callbackUrl,
        state: 's',
        codeChallenge: 'unused',
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: tiktok.client.clientKey,
      scope: 'user.info.basic,video.publish',
      response_type: 'code',
      redirect_uri: callbackUrl,
      state: 's',
      disable_auto_auth: '1',
    });
    const consented = await got(url.toString(), { followRedirect: false, throwHttpErrors: false });
    const code = new URL(consented.headers.location ?? '').searchParams.get('code') ?? '';
    const client = { clientId: tiktok.client.clientKey, clientSecret: tiktok.client.clientSecret };

    const tokens = await oauth.exchangeCode({ client, callbackUrl, code, codeVerifier: 'unused' });
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 86_000_000);
    expect(tokens.refreshTokenExpiresAt).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: tiktok.account.displayName, accountId: tiktok.account.openId });

    const refreshed = await oauth.refresh({ client, tokens });
    expect(refreshed.refreshToken).toMatch(/^rft\./);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    const again = await oauth.refresh({ client, tokens: refreshed });
    expect(again.accessToken).toBeTruthy();

    // The spent refresh token: refused for good, without the token in the words.
    const refused = await failureOf(oauth.refresh({ client, tokens }), SocialRejectedError);
    expect(refused.reason).toContain('invalid_grant');
    expect(refused.reason).not.toContain(tokens.refreshToken!);
  });
});

describe('TikTok connector', () => {
  it('when a connection is verified and its destinations listed, then it is the account and its privacy levels in TikTok’s words', async () => {
    expect(await connector.verify(credentials())).toEqual({ accountName: tiktok.account.displayName, accountId: tiktok.account.openId });
    expect(await connector.destinations(credentials())).toEqual([
      { id: 'PUBLIC_TO_EVERYONE', name: 'Everyone' },
      { id: 'MUTUAL_FOLLOW_FRIENDS', name: 'Friends' },
      { id: 'SELF_ONLY', name: 'Only me' },
    ]);
  });

  it('when a video over 5 MB is published, then it goes in two chunks and TikTok processes it between attempts into one public post', async () => {
    tiktok.processingPolls = 1;
    const sessions = callSessionStore();
    const post = postWith(large);
    const processing = await failureOf(connector.publish(credentials(), post, sessions), MediaStillProcessing);
    expect(processing.detail).toBe('Uploaded the video; TikTok is processing it.');
    const published = await connector.publish(credentials(), post, sessions);

    expect(uploads()).toHaveLength(2);
    expect(inits()).toHaveLength(1);
    expect(tiktok.posts).toHaveLength(1);
    const [made] = tiktok.posts;
    expect(made!.video.equals(large)).toBe(true);
    expect(made!.title).toBe(post.text);
    expect(published).toEqual({ externalPostId: made!.id, url: `https://www.tiktok.com/@${tiktok.account.username}/video/${made!.id}` });
    expect(tiktok.publishes[0]!.postInfo).toMatchObject({
      privacy_level: 'PUBLIC_TO_EVERYONE',
      is_aigc: true,
      disable_comment: false,
      video_cover_timestamp_ms: 1000,
    });
  });

  it('when a small video is published, then it goes as one chunk of its size', async () => {
    const published = await connector.publish(credentials(), postWith(), callSessionStore());
    expect(uploads()).toHaveLength(1);
    expect(tiktok.publishes[0]).toMatchObject({ chunkSize: small.length, totalChunkCount: 1 });
    expect(published.externalPostId).toBe(tiktok.posts[0]!.id);
  });

  it('when TikTok fails the publish, then the attempt is refused naming the reason', async () => {
    tiktok.failNextPublish = 'file_format_check_failed';
    const error = await failureOf(connector.publish(credentials(), postWith(), callSessionStore()), SocialRejectedError);
    expect(error.reason).toContain('file_format_check_failed');
    expect(error.reason).toContain('not in a format TikTok takes');
  });

  it('when the chosen privacy level is no longer offered, or none was chosen, then nothing is sent', async () => {
    tiktok.creator.privacyLevelOptions = ['SELF_ONLY'];
    const gone = await failureOf(connector.publish(credentials('MUTUAL_FOLLOW_FRIENDS'), postWith(), callSessionStore()), SocialRejectedError);
    expect(gone.reason).toContain('privacy_level_options');
    expect(gone.about).toBe('destination');
    const none = await failureOf(connector.publish(credentials(undefined), postWith(), callSessionStore()), SocialRejectedError);
    expect(none.about).toBe('destination');
    expect(inits()).toHaveLength(0);
  });

  it('when the creator has turned comments off, then the post keeps them off', async () => {
    tiktok.creator.commentDisabled = true;
    await connector.publish(credentials(), postWith(), callSessionStore());
    expect(tiktok.publishes[0]!.postInfo).toMatchObject({ disable_comment: true, disable_duet: false });
  });

  it('when the creator has posted as much as TikTok allows today, then the publication waits an hour and asks again, in TikTok’s words', async () => {
    tiktok.creator.canPost = 'spam_risk_too_many_posts';
    const error = await failureOf(connector.publish(credentials(), postWith(), callSessionStore()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(60 * 60 * 1000);
    expect(error.message).toContain('spam_risk_too_many_posts');
    expect(error.message).toContain('posted as many times as it may today');
    expect(inits()).toHaveLength(0);
  });

  it('when the creator is banned from posting, then the refusal is for good, in TikTok’s words', async () => {
    tiktok.creator.canPost = 'spam_risk_user_banned_from_posting';
    const error = await failureOf(connector.publish(credentials(), postWith(), callSessionStore()), SocialRejectedError);
    expect(error.reason).toContain('banned the account from posting');
  });

  it('when TikTok rate-limits the init, then the attempt waits as TikTok asks', async () => {
    tiktok.script('init', [{ status: 429, retryAfter: '90' }]);
    const error = await failureOf(connector.publish(credentials(), postWith(), callSessionStore()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(90_000);
  });

  it('when the answer to the last chunk is lost, then the next attempt uploads nothing again and one post results', async () => {
    tiktok.dropAnswerOfNextChunk();
    const sessions = callSessionStore();
    const post = postWith();
    const account = credentials();
    await failureOf(connector.publish(account, post, sessions), SocialOutcomeUnknownError);
    const found = foundPost(await connector.findPublished(account, post.idempotencyKey, sessions));
    const again = await connector.publish(account, post, sessions);
    expect(again).toEqual(found);
    expect(uploads()).toHaveLength(1);
    expect(inits()).toHaveLength(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('when TikTok fails the publish on its own side, then the next attempt publishes again, and one post results', async () => {
    tiktok.failNextPublish = 'internal';
    const sessions = callSessionStore();
    const post = postWith();
    const error = await failureOf(connector.publish(credentials(), post, sessions), SocialUnavailableError);
    expect(error.message).toContain('fail_reason internal');
    await connector.publish(credentials(), post, sessions);
    expect(inits()).toHaveLength(2);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('when the last chunk’s answer is lost and TikTok’s count lags, then the resent chunk it refuses starts no second publish', async () => {
    tiktok.dropAnswerOfNextChunk();
    const sessions = callSessionStore();
    const post = postWith();
    const account = credentials();
    await failureOf(connector.publish(account, post, sessions), SocialOutcomeUnknownError);
    tiktok.statusLagsNextFetch = true;
    await connector.publish(account, post, sessions);
    // The chunk went twice (the second refused, TikTok having it), the publish once.
    expect(uploads()).toHaveLength(2);
    expect(inits()).toHaveLength(1);
    expect(tiktok.posts).toHaveLength(1);
  });

  it('when the app is not audited, then only "Only me" is listed and a private post is made', async () => {
    tiktok.unaudited = true;
    expect(await connector.destinations(credentials())).toEqual([{ id: 'SELF_ONLY', name: 'Only me' }]);
    const published = await connector.publish(credentials('SELF_ONLY'), postWith(), callSessionStore());
    // A private video has no public id: the publish stands for it, with no link, and says who sees it.
    expect(published).toEqual({ externalPostId: tiktok.publishes[0]!.publishId, visibility: expect.stringContaining('Visible only to the creator') });
  });
});
