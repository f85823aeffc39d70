import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import type { OAuthPlatform } from '../../../../src/adapters/social/oauth-platform.ts';
import { createPinterestConnector, type PinterestConnector } from '../../../../src/adapters/social/pinterest/pinterest-connector.ts';
import { createPinterestOAuth } from '../../../../src/adapters/social/pinterest/pinterest-oauth.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type PinterestCredentials,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { callSessionStore } from '../../../../src/adapters/social/call-session-store.ts';
import { startPinterestServer, type PinterestServer } from '../../../fakes/pinterest-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { foundPost } from '../../../support/found-post.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let pinterest: PinterestServer;
let oauth: OAuthPlatform;
let connector: PinterestConnector;
let png: Buffer;
const callbackUrl = 'https://content.example/oauth/pinterest/callback';

function credentials(destination = pinterest.boards[0]!.id): PinterestCredentials {
  return { platform: 'pinterest', accessToken: pinterest.issueAccessToken(), expiresAt: new Date(Date.now() + 3_600_000).toISOString(), destination };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: `Spring collection ${randomUUID()}`,
    idempotencyKey: randomUUID(),
    image: { bytes: png, contentType: 'image/png', alt: 'Three jackets' },
    ...overrides,
  };
}

const pinOf = (id: string) => pinterest.pins.find((pin) => pin.id === id);

beforeAll(async () => {
  pinterest = await startPinterestServer();
  const endpoints = { allowPrivateNetworks: true, apiUrl: pinterest.url, authorizeUrl: pinterest.authorizeUrl };
  oauth = createPinterestOAuth(endpoints);
  connector = createPinterestConnector({ ...endpoints, timeoutMs: 2_000 });
  png = await makeImage('png');
});
beforeEach(() => {
  pinterest.requests.length = 0;
  pinterest.decision = 'consent';
  pinterest.videoProcessingChecks = 0;
});
afterAll(() => pinterest?.close());

describe('Pinterest OAuth', () => {
  it('when the person consents, then the code is exchanged with Basic authentication, and a refresh rotates the refresh token and retires the old one', async () => {
    const url = new URL(oauth.authorizationUrl({ client: pinterest.client, callbackUrl, state: 'the-state', codeChallenge: 'unused' }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: pinterest.client.clientId,
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: 'user_accounts:read,boards:read,boards:write,pins:read,pins:write',
      state: 'the-state',
    });
    const answer = await got(url.toString(), { followRedirect: false, throwHttpErrors: false });
    const back = new URL(answer.headers.location ?? '');
    expect(back.searchParams.get('state')).toBe('the-state');

    const tokens = await oauth.exchangeCode({ client: pinterest.client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier: 'unused' });
    expect(tokens.refreshToken).toBe(pinterest.currentRefreshToken());
    expect(tokens.refreshTokenExpiresAt).toBeGreaterThan(Date.now());
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: pinterest.account.username, accountId: pinterest.account.id });

    const refreshed = await oauth.refresh({ client: pinterest.client, tokens });
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    const refusal = await failureOf(oauth.refresh({ client: pinterest.client, tokens }), SocialRejectedError);
    expect(refusal.reason).toContain('Pinterest refused the grant (400)');
    expect(refusal.reason).not.toContain(tokens.refreshToken);
  });

  it('when the app secret is wrong, then the exchange is refused and the secret is not in the reason', async () => {
    const client = { clientId: pinterest.client.clientId, clientSecret: 'wrong-secret' };
    const error = await failureOf(oauth.exchangeCode({ client, callbackUrl, code: 'any', codeVerifier: 'unused' }), SocialRejectedError);
    expect(error.reason).toContain('401');
    expect(error.reason).not.toContain('wrong-secret');
  });

  it('when the token endpoint answers 503 or 429, then the refresh is an outage or a rate limit, never a refusal', async () => {
    const tokens = { accessToken: 'a', refreshToken: 'r', expiresAt: Date.now() };
    pinterest.script('token', [{ status: 503 }, { status: 429, retryAfter: '120' }]);
    await failureOf(oauth.refresh({ client: pinterest.client, tokens }), SocialUnavailableError);
    const limited = await failureOf(oauth.refresh({ client: pinterest.client, tokens }), SocialRateLimitedError);
    expect(limited.retryAfterMs).toBeGreaterThan(100_000);
  });
});

describe('Pinterest connector', () => {
  it('when the boards are asked for, then every board of the account is listed with its name', async () => {
    const boards = await connector.destinations(credentials());
    expect(boards).toEqual(pinterest.boards.map(({ id, name }) => ({ id, name })));
  });

  it('when a post has an image, then the Pin carries it in base64 with its title, description, link and alt text, on the chosen board', async () => {
    const board = pinterest.boards[1]!.id;
    const text = `Linen shirts are back\nAll colours at https://shop.example/linen. ${randomUUID()}`;
    const published = await connector.publish(credentials(board), postWith({ text }));
    expect(pinOf(published.externalPostId)).toMatchObject({
      boardId: board,
      title: 'Linen shirts are back',
      description: text,
      link: 'https://shop.example/linen',
      altText: 'Three jackets',
      media: { kind: 'image', bytes: png, contentType: 'image/png' },
    });
    expect(published.url).toBe(`https://www.pinterest.com/pin/${published.externalPostId}/`);
  });

  it('when the text is over 800 characters, then the description is cut to 800 and the preview says so', async () => {
    const text = 'a'.repeat(900);
    const published = await connector.publish(credentials(), postWith({ text }));
    const description = pinOf(published.externalPostId)?.description ?? '';
    expect(Array.from(description)).toHaveLength(800);
    expect((await connector.preview({ text })).text).toBe(description);
    expect(pinOf(published.externalPostId)?.title).toHaveLength(100);
  });

  it('when no board was chosen, then the publish is refused about the destination and nothing is sent', async () => {
    const error = await failureOf(connector.publish({ ...credentials(), destination: undefined }, postWith()), SocialRejectedError);
    expect(error.about).toBe('destination');
    expect(pinterest.requests.filter((request) => request.path === '/v5/pins')).toHaveLength(0);
  });

  it('when the board is not the account’s, then Pinterest refuses the Pin in its words', async () => {
    const error = await failureOf(connector.publish(credentials('123456789'), postWith()), SocialRejectedError);
    expect(error.reason).toMatch(/^Pinterest refused the Pin \(404\): code \d+: /);
  });

  it('when Pinterest answers 429, then the wait is its reset', async () => {
    pinterest.script('pins', [{ status: 429, retryAfter: '300' }]);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBeGreaterThan(290_000);
  });

  it('when the token is revoked, then Pinterest refuses it (401) and the reason says to connect again', async () => {
    const error = await failureOf(connector.publish({ ...credentials(), accessToken: 'revoked' }, postWith()), SocialRejectedError);
    expect(error.reason).toContain('connect the account again');
  });

  it('when the answer to a Pin never comes, then it is found on the board and a retry returns it instead of a second Pin', async () => {
    const sessions = callSessionStore();
    const account = credentials();
    const post = postWith();
    pinterest.timeOutAfterNextPin = true;
    await failureOf(connector.publish(account, post, sessions), SocialUnavailableError);
    const made = pinterest.pins.filter((pin) => pin.description === post.text);
    expect(made).toHaveLength(1);

    expect(foundPost(await connector.findPublished(account, post.idempotencyKey, sessions)).externalPostId).toBe(made[0]!.id);
    expect(await connector.findPublished(account, randomUUID(), sessions)).toBe(notSent);
  });
});

describe('Pinterest connector, video', () => {
  let video: Buffer;
  beforeAll(() => {
    video = makeVideo({ width: 108, height: 192, seconds: 1 });
  });
  const uploadsOf = () => pinterest.requests.filter((request) => request.path.startsWith('/media-uploads/'));

  it('when a post has a video, then it is registered, sent once, waited for between attempts, and the Pin names it', async () => {
    pinterest.videoProcessingChecks = 1;
    const sessions = callSessionStore();
    const post = postWith({ image: undefined, video: socialVideoOf(video, { width: 108, height: 192 }) });
    const processing = await failureOf(connector.publish(credentials(), post, sessions), MediaStillProcessing);
    expect(processing.detail).toBe('Uploaded the video; Pinterest is processing it.');
    const published = await connector.publish(credentials(), post, sessions);

    const pin = pinOf(published.externalPostId)!;
    expect(pin.media.kind).toBe('video');
    const mediaId = pin.media.kind === 'video' ? pin.media.mediaId : '';
    expect(pinterest.media.get(mediaId)?.bytes?.equals(video)).toBe(true);
    expect(pinterest.requests.filter((request) => request.path === '/v5/media')).toHaveLength(1);
    expect(uploadsOf()).toHaveLength(1);
    expect(uploadsOf()[0]!.headers.authorization).toBeUndefined();
  });

  it('when the upload is refused for a moment, then the next attempt registers anew and one Pin is made', async () => {
    pinterest.script('media_upload', [{ status: 503 }]);
    const sessions = callSessionStore();
    const post = postWith({ image: undefined, video: socialVideoOf(video, { width: 108, height: 192 }) });
    await failureOf(connector.publish(credentials(), post, sessions), SocialUnavailableError);
    await connector.publish(credentials(), post, sessions);
    expect(pinterest.requests.filter((request) => request.path === '/v5/media')).toHaveLength(2);
    expect(pinterest.pins.filter((pin) => pin.description === post.text)).toHaveLength(1);
  });
});
