import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callSessionStore } from '../../../../src/adapters/social/call-session-store.ts';
import { createFacebookConnector } from '../../../../src/adapters/social/facebook/facebook-connector.ts';
import { createFacebookOAuth } from '../../../../src/adapters/social/facebook/facebook-oauth.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  type FacebookCredentials,
  type SessionStore,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startFacebookServer, type FacebookServer } from '../../../fakes/facebook-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { foundPost } from '../../../support/found-post.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let facebook: FacebookServer;
let connector: SocialConnector;
let credentials: FacebookCredentials;
let png: Buffer;
const callbackUrl = 'https://content.example/oauth/facebook/callback';

const connectorFor = (timeoutMs?: number) =>
  createFacebookConnector({
    apiUrl: facebook.url,
    videoApiUrl: facebook.url,
    allowPrivateNetworks: true,
    appId: facebook.app.clientId,
    ...(timeoutMs ? { timeoutMs } : {}),
  });

function post(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: 'Harbour lights at dusk https://example.com/harbour', idempotencyKey: randomUUID(), ...overrides };
}

const imagePost = () => post({ image: { bytes: png, contentType: 'image/png', alt: 'Boats at dusk' } });

beforeAll(async () => {
  facebook = await startFacebookServer();
  connector = connectorFor();
  png = await makeImage('png');
});
beforeEach(() => {
  credentials = {
    platform: 'facebook',
    accessToken: facebook.issueUserToken('long'),
    expiresAt: new Date(Date.now() + 50 * 86_400_000).toISOString(),
    userId: facebook.user.id,
    destination: facebook.pages[0]!.id,
  };
  facebook.requests.length = 0;
  facebook.posts.length = 0;
  facebook.videoProcessingChecks = 0;
  facebook.timeOutAfterPosting = 0;
});
afterAll(() => facebook?.close());

describe('Facebook OAuth and Pages', () => {
  it('when the person consents, then the code becomes a long-lived user token of theirs, and their Pages are the destinations', async () => {
    const oauth = createFacebookOAuth({ apiUrl: facebook.url, authorizeUrl: facebook.authorizeUrl, allowPrivateNetworks: true });
    const authorizationUrl = oauth.authorizationUrl({ client: facebook.app, callbackUrl, state: 'opaque', codeChallenge: 'unused' });
    expect(new URL(authorizationUrl).searchParams.get('auth_type')).toBe('rerequest');
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const tokens = await oauth.exchangeCode({ client: facebook.app, callbackUrl, code, codeVerifier: 'unused' });
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: facebook.user.name, accountId: facebook.user.id });
    const postable = facebook.pages.filter((page) => page.tasks.includes('CREATE_CONTENT'));
    expect(await connector.destinations?.({ ...credentials, accessToken: tokens.accessToken })).toEqual(postable.map(({ id, name }) => ({ id, name })));
  });
});

describe('Facebook connector: publishing', () => {
  it('when the post has text only, then it goes to the chosen Page with its Page token, its link previewed', async () => {
    const published = await connector.publish(credentials, post(), callSessionStore());
    expect(facebook.posts).toEqual([expect.objectContaining({ pageId: credentials.destination, kind: 'text', link: 'https://example.com/harbour' })]);
    expect(published).toEqual({ externalPostId: facebook.posts[0]!.id, url: facebook.posts[0]!.permalinkUrl });
  });

  it('when the post has an image, then it goes as a photo in the request, and the post showing it is what was published', async () => {
    const published = await connector.publish(credentials, imagePost(), callSessionStore());
    expect(facebook.posts).toHaveLength(1);
    expect(facebook.posts[0]).toMatchObject({ kind: 'photo', message: imagePost().text });
    expect(facebook.posts[0]!.photo?.bytes.equals(png)).toBe(true);
    expect(published.externalPostId).toBe(facebook.posts[0]!.id);
  });

  it('when no Page is chosen, then publishing is refused about the destination and nothing is sent', async () => {
    const error = await failureOf(connector.publish({ ...credentials, destination: undefined }, post(), callSessionStore()), SocialRejectedError);
    expect(error.about).toBe('destination');
    expect(facebook.requests).toHaveLength(0);
  });

  it('when the Page token was derived once, then the next post uses the one the connection holds', async () => {
    const sessions = callSessionStore();
    await connector.publish(credentials, post(), sessions);
    await connector.publish(credentials, post(), sessions);
    expect(facebook.requests.filter((request) => request.path.endsWith('/me/accounts'))).toHaveLength(1);
    expect(facebook.posts).toHaveLength(2);
  });

  it('when the Page token the connection holds is refused, then it is derived again once and the post is made once', async () => {
    const sessions = callSessionStore();
    await connector.publish(credentials, post(), sessions);
    const held = (JSON.parse((await sessions.read()) ?? '{}') as { facebookPageTokens: Record<string, string> }).facebookPageTokens;
    facebook.expire(held[credentials.destination!]!);
    await connector.publish(credentials, post({ text: 'After the Page token was refused' }), sessions);
    expect(facebook.posts.filter((made) => made.message === 'After the Page token was refused')).toHaveLength(1);
    expect(facebook.requests.filter((request) => request.path.endsWith('/me/accounts'))).toHaveLength(2);
  });

  it('when a video is posted, then it is uploaded once, the Page video names it, and the post waits until Facebook has processed it', async () => {
    facebook.videoProcessingChecks = 1;
    const clip = makeVideo({ width: 108, height: 192, seconds: 2 });
    const sessions = callSessionStore();
    const videoPost = post({ video: socialVideoOf(clip) });
    await failureOf(connector.publish(credentials, videoPost, sessions), MediaStillProcessing);
    const published = await connector.publish(credentials, videoPost, sessions);
    expect(facebook.videos).toHaveLength(1);
    expect(facebook.videos[0]!.bytes.equals(clip)).toBe(true);
    expect(published.externalPostId).toBe(facebook.videos[0]!.id);
    expect(facebook.bytesReceivedTotal()).toBe(clip.length);
  });

  it('when the answer to an upload is lost, then the next attempt asks where the session stands and sends nothing twice', async () => {
    const clip = makeVideo({ width: 108, height: 192, seconds: 2, noise: true });
    const before = facebook.bytesReceivedTotal();
    const sessions: SessionStore = callSessionStore();
    const videoPost = post({ video: socialVideoOf(clip) });
    facebook.dropAnswerOfNextUpload();
    await expect(connector.publish(credentials, videoPost, sessions)).rejects.toThrow();
    await connector.publish(credentials, videoPost, sessions);
    expect(facebook.requests.filter((request) => request.method === 'GET' && request.path.includes('upload:'))).toHaveLength(1);
    expect(facebook.bytesReceivedTotal() - before).toBe(clip.length);
    expect(facebook.videos.filter((video) => video.bytes.equals(clip))).toHaveLength(1);
  });

  it('when a resumed upload is refused, then a new upload session takes the whole file and one video is made', async () => {
    const clip = makeVideo({ width: 108, height: 192, seconds: 2, noise: true });
    const sessions = callSessionStore();
    const videoPost = post({ text: 'A resumed upload refused', video: socialVideoOf(clip) });
    facebook.dropAnswerOfNextUpload();
    await expect(connector.publish(credentials, videoPost, sessions)).rejects.toThrow();
    facebook.script('upload', [{ status: 400, code: 100, message: 'Invalid upload session' }]);
    await connector.publish(credentials, videoPost, sessions);
    expect(facebook.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/uploads'))).toHaveLength(2);
    expect(facebook.videos.filter((video) => video.description === videoPost.text)).toHaveLength(1);
  });

  it('when Facebook refuses the post, then the attempt fails for good in its words', async () => {
    facebook.script('feed', [{ status: 400, code: 100, message: 'Invalid parameter' }]);
    const error = await failureOf(connector.publish(credentials, post(), callSessionStore()), SocialRejectedError);
    expect(error.reason).toBe('Facebook refused the post (400, code 100): Invalid parameter');
  });

  it('when Facebook throttles the Page, then the attempt waits as it says', async () => {
    facebook.script('photos', [{ status: 400, code: 32, retryAfter: '7' }]);
    const error = await failureOf(connector.publish(credentials, imagePost(), callSessionStore()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(7_000);
    expect(facebook.posts).toHaveLength(0);
  });

  it('when the answer to a video is lost after Facebook took it, then it is found among the Page’s videos while it processes', async () => {
    const sessions = callSessionStore();
    const lost = post({ text: 'A video whose answer was lost', video: socialVideoOf(makeVideo({ width: 108, height: 192, seconds: 2 })) });
    facebook.timeOutAfterPosting = 1;
    await failureOf(connectorFor(500).publish(credentials, lost, sessions), SocialOutcomeUnknownError);
    const found = foundPost(await connector.findPublished?.(credentials, lost.idempotencyKey, sessions));
    expect(found.externalPostId).toBe(facebook.videos.at(-1)!.id);
    expect(facebook.videos.filter((video) => video.description === lost.text)).toHaveLength(1);
  });

  it('when the answer to a photo without text is lost, then it cannot be told from other such posts and is not claimed', async () => {
    const sessions = callSessionStore();
    const lost = post({ text: '', image: { bytes: png, contentType: 'image/png', alt: '' } });
    facebook.timeOutAfterPosting = 1;
    await failureOf(connectorFor(500).publish(credentials, lost, sessions), SocialOutcomeUnknownError);
    expect(facebook.posts).toHaveLength(1);
    expect(await connector.findPublished?.(credentials, lost.idempotencyKey, sessions)).toBeNull();
  });

  it('when the answer to a post is lost after Facebook made it, then it is found among the Page’s posts', async () => {
    const sessions = callSessionStore();
    const lost = post();
    facebook.timeOutAfterPosting = 1;
    await failureOf(connectorFor(500).publish(credentials, lost, sessions), SocialOutcomeUnknownError);
    expect(foundPost(await connector.findPublished?.(credentials, lost.idempotencyKey, sessions)).externalPostId).toBe(facebook.posts[0]!.id);
    expect(await connector.findPublished?.(credentials, randomUUID(), sessions)).toBe(notSent);
  });
});
