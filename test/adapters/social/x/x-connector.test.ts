import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import type { OAuthPlatform } from '../../../../src/adapters/social/oauth-platform.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SessionStore,
  type SocialPost,
  type XCredentials,
} from '../../../../src/adapters/social/social-connector.ts';
import { createXConnector, type XConnector } from '../../../../src/adapters/social/x/x-connector.ts';
import { createXOAuthPlatform } from '../../../../src/adapters/social/x/x-oauth-platform.ts';
import { shortenText } from '../../../../src/adapters/social/shorten-text.ts';
import { weightedLength, xMaxWeightedLength } from '../../../../src/adapters/social/weighted-text.ts';
import { startXServer, type XServer } from '../../../fakes/x-server.ts';
import { foundPost } from '../../../support/found-post.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let x: XServer;
let oauth: OAuthPlatform;
let connector: XConnector;
let png: Buffer;
const callbackUrl = 'https://content.example/oauth/x/callback';

/** A session store in memory, as connection-sessions.ts keeps it in a row. */
function memorySessions(): SessionStore & { stored: string | undefined } {
  const store = {
    key: randomUUID(),
    stored: undefined as string | undefined,
    read: () => Promise.resolve(store.stored),
    async renew(renewal: (stored: string | undefined) => Promise<string>) {
      store.stored = await renewal(store.stored);
      return store.stored;
    },
  };
  return store;
}

function credentials(): XCredentials {
  return { platform: 'x', accessToken: x.issueAccessToken(), expiresAt: new Date(Date.now() + 7_200_000).toISOString(), userId: x.account.id };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: `Spring collection is here ${randomUUID()}`, idempotencyKey: randomUUID(), ...overrides };
}

/** Where the fake's consent page sends the person back to, for an authorization URL. */
async function consent(authorizationUrl: string): Promise<URL> {
  const answer = await got(authorizationUrl, { followRedirect: false, throwHttpErrors: false });
  expect(answer.statusCode).toBe(302);
  return new URL(answer.headers.location ?? '');
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

beforeAll(async () => {
  x = await startXServer();
  const endpoints = { allowPrivateNetworks: true, apiUrl: x.url, authorizeUrl: x.authorizeUrl };
  oauth = createXOAuthPlatform(endpoints);
  connector = createXConnector({ ...endpoints, timeoutMs: 2_000 });
  png = await makeImage('png');
});
beforeEach(() => {
  x.requests.length = 0;
  x.decision = 'consent';
  x.accessTokenLifetimeSeconds = 7200;
});
afterAll(() => x?.close());

describe('X OAuth', () => {
  it('when the person consents, then the code is exchanged with PKCE for tokens, and a refresh rotates the refresh token and retires the old one', async () => {
    const { verifier, challenge } = pkce();
    const url = new URL(oauth.authorizationUrl({ client: x.client, callbackUrl, state: 'the-state', codeChallenge: challenge }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: x.client.clientId,
      redirect_uri: callbackUrl,
      scope: 'tweet.read tweet.write users.read offline.access media.write',
      state: 'the-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const back = await consent(url.toString());
    expect(back.searchParams.get('state')).toBe('the-state');
    const code = back.searchParams.get('code') ?? '';

    const tokens = await oauth.exchangeCode({ client: x.client, callbackUrl, code, codeVerifier: verifier });
    expect(tokens.refreshToken).toBe(x.currentRefreshToken());
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 7_100_000);
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: '@alice_x', accountId: x.account.id });

    const refreshed = await oauth.refresh({ client: x.client, tokens });
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    const refusal = await failureOf(oauth.refresh({ client: x.client, tokens }), SocialRejectedError);
    expect(refusal.reason).toContain('invalid_grant');
    expect(refusal.reason).not.toContain(tokens.refreshToken);
  });

  it('when the verifier does not match the challenge, then the exchange is refused', async () => {
    const { challenge } = pkce();
    const back = await consent(oauth.authorizationUrl({ client: x.client, callbackUrl, state: 's', codeChallenge: challenge }));
    const error = await failureOf(
      oauth.exchangeCode({ client: x.client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier: pkce().verifier }),
      SocialRejectedError,
    );
    expect(error.reason).toContain('invalid_grant');
  });

  it('when the client secret is wrong, then the exchange is refused and the secret is not in the reason', async () => {
    const { verifier, challenge } = pkce();
    const back = await consent(oauth.authorizationUrl({ client: x.client, callbackUrl, state: 's', codeChallenge: challenge }));
    const client = { clientId: x.client.clientId, clientSecret: 'wrong-secret' };
    const error = await failureOf(
      oauth.exchangeCode({ client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier: verifier }),
      SocialRejectedError,
    );
    expect(error.reason).toContain('401');
    expect(error.reason).not.toContain('wrong-secret');
  });

  it('when the person refuses, then X sends them back with access_denied', async () => {
    x.decision = 'deny';
    const back = await consent(oauth.authorizationUrl({ client: x.client, callbackUrl, state: 's', codeChallenge: pkce().challenge }));
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('when the token endpoint answers 503 or 429, then the refresh is an outage or a rate limit, never a refusal', async () => {
    const tokens = { accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() };
    x.script('token', [{ status: 503 }, { status: 429, rateLimitReset: String(Math.ceil(Date.now() / 1000) + 120) }]);
    await failureOf(oauth.refresh({ client: x.client, tokens }), SocialUnavailableError);
    const limited = await failureOf(oauth.refresh({ client: x.client, tokens }), SocialRateLimitedError);
    expect(limited.retryAfterMs).toBeGreaterThan(100_000);
  });
});

describe('X connector', () => {
  it('when a post has an image, then the image is uploaded with its description and the post carries it', async () => {
    const published = await connector.publish(
      credentials(),
      postWith({ text: 'Jackets & coats', image: { bytes: png, contentType: 'image/png', alt: 'Three jackets' } }),
    );
    const tweet = x.tweets.find((candidate) => candidate.id === published.externalPostId);
    expect(tweet?.text).toBe('Jackets & coats');
    expect(x.media.find((media) => media.id === tweet?.mediaIds[0])).toMatchObject({
      bytes: png,
      mediaType: 'image/png',
      category: 'tweet_image',
      altText: 'Three jackets',
    });
    expect(published.url).toBe(`https://x.com/i/web/status/${published.externalPostId}`);
  });

  it('when the token was granted without media.write, then an image post is refused naming the scope and nothing is posted; a text post goes', async () => {
    const withoutMedia = { ...credentials(), accessToken: x.issueAccessToken(7200, ['tweet.read', 'tweet.write', 'users.read', 'offline.access']) };
    const before = x.tweets.length;
    const error = await failureOf(
      connector.publish(withoutMedia, postWith({ image: { bytes: png, contentType: 'image/png', alt: 'Three jackets' } })),
      SocialRejectedError,
    );
    expect(error.reason).toBe('X refused the image (403): Missing required OAuth2 scopes: media.write');
    expect(x.tweets).toHaveLength(before);
    await connector.publish(withoutMedia, postWith());
    expect(x.tweets).toHaveLength(before + 1);
  });

  it('when the text weighs over 280, then it is cut to 280 with an ellipsis, links whole', async () => {
    const text = `${'日本語'.repeat(60)} https://example.com/a-long-link`;
    const published = await connector.publish(credentials(), postWith({ text }));
    const sent = x.tweets.find((candidate) => candidate.id === published.externalPostId)?.text ?? '';
    expect(weightedLength(sent)).toBeLessThanOrEqual(280);
    expect(sent.endsWith('…')).toBe(true);
    expect(shortenText('https://example.com/x '.repeat(20), { weighted: xMaxWeightedLength })).not.toMatch(/https?:\/\/\S*…/);
    expect((await connector.preview({ text })).text).toBe(sent);
  });

  it('when X answers 429, then the wait is x-rate-limit-reset', async () => {
    x.script('tweets', [{ status: 429, rateLimitReset: String(Math.ceil(Date.now() / 1000) + 300) }]);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBeGreaterThan(290_000);
  });

  it('when the token is expired or revoked, then X refuses it (401) and the reason says to connect again', async () => {
    const error = await failureOf(connector.publish({ ...credentials(), accessToken: 'revoked' }, postWith()), SocialRejectedError);
    expect(error.reason).toContain('connect the account again');
  });

  it('when the answer to a post never comes, then an earlier attempt with the key finds the post X created, and a retry returns it instead of a second post', async () => {
    const sessions = memorySessions();
    const account = credentials();
    const post = postWith({ text: 'New arrivals https://shop.example/new', image: { bytes: png, contentType: 'image/png', alt: 'Coats' } });
    x.timeOutAfterNextTweet = true;
    await failureOf(connector.publish(account, post, sessions), SocialUnavailableError);
    expect(x.tweets.filter((tweet) => tweet.text === post.text)).toHaveLength(1);

    const found = foundPost(await connector.findPublished(account, post.idempotencyKey, sessions));
    expect(found.externalPostId).toBe(x.tweets.find((tweet) => tweet.text === post.text)?.id);
    // Nothing was ever about to be sent under another key.
    expect(await connector.findPublished(account, randomUUID(), sessions)).toBe(notSent);

    const retried = await connector.publish(account, post, sessions);
    expect(retried.externalPostId).toBe(found.externalPostId);
    expect(x.tweets.filter((tweet) => tweet.text === post.text)).toHaveLength(1);
  });
});

describe('X connector, video', () => {
  let large: Buffer;
  beforeAll(() => {
    large = makeVideo({ width: 480, height: 854, seconds: 1.5, noise: true });
  });
  const appendsOf = () => x.requests.filter((request) => request.path.endsWith('/append'));

  it('when a post has a video, then it goes up in 4 MiB segments, X processes it between attempts, and the post carries it', async () => {
    x.videoProcessingChecks = 1;
    const sessions = memorySessions();
    const post = postWith({ video: socialVideoOf(large, { width: 480, height: 854, durationMs: 1_500 }) });
    const uploading = await failureOf(connector.publish(credentials(), post, sessions), MediaStillProcessing);
    expect(uploading.detail).toBe('Uploaded the video (3 parts); X is processing it.');
    // X asks for a second; the wait is never shorter than our own spacing, two seconds at first.
    expect(uploading.checkAfterMs).toBe(2_000);
    await failureOf(connector.publish(credentials(), post, sessions), MediaStillProcessing);
    const published = await connector.publish(credentials(), post, sessions);

    const tweet = x.tweets.find((candidate) => candidate.id === published.externalPostId)!;
    const media = x.media.find((candidate) => candidate.id === tweet.mediaIds[0]);
    expect(media).toMatchObject({ mediaType: 'video/mp4', category: 'tweet_video' });
    expect(media!.bytes.equals(large)).toBe(true);
    expect(x.requests.filter((request) => request.path === '/2/media/upload/initialize')).toHaveLength(1);
    expect(appendsOf()).toHaveLength(3);
    // The upload's note went with the post; the post's own note stays for a lookup.
    expect(JSON.parse(sessions.stored!)).toMatchObject({ media: {}, sent: { [post.idempotencyKey]: { text: post.text } } });
  });

  it('when an attempt stops after the first segment, then the next appends from the second into the same upload, and one video is posted', async () => {
    x.videoProcessingChecks = 0;
    x.script('media_append', [{}, { status: 503 }]);
    const sessions = memorySessions();
    const post = postWith({ video: socialVideoOf(large, { width: 480, height: 854, durationMs: 1_500 }) });
    await failureOf(connector.publish(credentials(), post, sessions), SocialUnavailableError);
    const published = await connector.publish(credentials(), post, sessions);

    expect(x.requests.filter((request) => request.path === '/2/media/upload/initialize')).toHaveLength(1);
    const uploadIds = new Set(appendsOf().map((request) => request.path.split('/')[4]));
    expect(uploadIds.size).toBe(1);
    // Segment 0 once, segment 1 refused then sent again, segment 2: four appends, not six.
    expect(appendsOf()).toHaveLength(4);
    const tweet = x.tweets.find((candidate) => candidate.id === published.externalPostId)!;
    expect(x.media.find((candidate) => candidate.id === tweet.mediaIds[0])!.bytes.equals(large)).toBe(true);
    expect(x.tweets.filter((candidate) => candidate.text === post.text)).toHaveLength(1);
  });

  it('when X fails the video at processing (a 1:5 video), then the publication is refused for good in its words, and nothing is posted', async () => {
    x.videoProcessingChecks = 0;
    const narrow = makeVideo({ width: 40, height: 200 });
    const post = postWith({ video: socialVideoOf(narrow, { width: 40, height: 200 }) });
    const error = await failureOf(connector.publish(credentials(), post, memorySessions()), SocialRejectedError);
    expect(error.reason).toBe('X could not process the video: Invalid or Unsupported media, Reason: Aspect ratio 40:200 is not between 1:3 and 3:1.');
    expect(x.tweets.some((candidate) => candidate.text === post.text)).toBe(false);
  });
});

describe('X connector, replies in a thread', () => {
  it('when a part replies to the one before, then X gets reply.in_reply_to_tweet_id naming it', async () => {
    const account = credentials();
    const root = await connector.publish(account, postWith({ text: `Part one ${randomUUID()}` }));
    const second = await connector.publish(account, postWith({ text: `Part two ${randomUUID()}`, replyTo: { root, parent: root } }));
    const third = await connector.publish(account, postWith({ text: `Part three ${randomUUID()}`, replyTo: { root, parent: second } }));
    const tweet = (id: string) => x.tweets.find((candidate) => candidate.id === id);
    expect(tweet(root.externalPostId)?.inReplyToTweetId).toBeUndefined();
    expect(tweet(second.externalPostId)?.inReplyToTweetId).toBe(root.externalPostId);
    expect(tweet(third.externalPostId)?.inReplyToTweetId).toBe(second.externalPostId);
  });

  it('when the post replied to is not on X, then X refuses the reply, for good, in its own words', async () => {
    const missing = { externalPostId: '1' };
    const error = await failureOf(connector.publish(credentials(), postWith({ replyTo: { root: missing, parent: missing } })), SocialRejectedError);
    expect(error.reason).toContain('You attempted to reply to a Tweet that is deleted or not visible to you.');
  });

  it('when the answer to a reply never comes, then the reply is found among the account’s posts and not posted again', async () => {
    const sessions = memorySessions();
    const account = credentials();
    const root = await connector.publish(account, postWith({ text: `Thread start ${randomUUID()}` }));
    const reply = postWith({ text: `Thread reply ${randomUUID()}`, replyTo: { root, parent: root } });
    x.timeOutAfterNextTweet = true;
    await failureOf(connector.publish(account, reply, sessions), SocialUnavailableError);
    const found = foundPost(await connector.findPublished(account, reply.idempotencyKey, sessions));
    expect(found.externalPostId).toBe(x.tweets.find((tweet) => tweet.text === reply.text)?.id);
    expect(x.tweets.filter((tweet) => tweet.text === reply.text)).toHaveLength(1);
  });
});
