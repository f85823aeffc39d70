import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInstagramConnector } from '../../../../src/adapters/social/instagram/instagram-connector.ts';
import {
  MediaStillProcessing,
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  type InstagramCredentials,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startHttpsServer, type HttpsServer } from '../../../fakes/https-server.ts';
import { startInstagramServer, type InstagramServer } from '../../../fakes/instagram-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { foundPost } from '../../../support/found-post.ts';
import { callSessionStore as memorySessions } from '../../../../src/adapters/social/call-session-store.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let instagram: InstagramServer;
let connector: SocialConnector;
let credentials: InstagramCredentials;
let tall: Buffer;
let square: Buffer;
let reel: Buffer;
// Stands in for our storage's signed links: what a connector stores through `copyLink` is served here, where
// Instagram (the fake) fetches it.
let files: HttpsServer;
const copies = new Map<string, Buffer>();

function copyLink(bytes: Buffer): Promise<string> {
  const name = `/copies/${copies.size + 1}.jpg`;
  copies.set(name, bytes);
  return Promise.resolve(`${files.url}${name}?expires=9999999999&signature=abc`);
}

function imagePost(image = tall, overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: 'Harbour lights at dusk #harbour',
    image: { bytes: image, contentType: 'image/png', alt: 'Boats coming home at dusk' },
    imageUrl: () => Promise.reject(new Error('Instagram is given a copy, never the stored image')),
    copyLink,
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

function reelPost(): SocialPost {
  return {
    text: 'The harbour in nine seconds',
    video: socialVideoOf(reel, { url: () => Promise.resolve(`${files.url}/reel.mp4`) }),
    idempotencyKey: randomUUID(),
  };
}

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#225588' } })
    .png()
    .toBuffer();

beforeAll(async () => {
  instagram = await startInstagramServer();
  connector = createInstagramConnector({ apiUrl: instagram.url, allowPrivateNetworks: true });
  [tall, square] = await Promise.all([png(1080, 1920), png(1080, 1080)]);
  reel = makeVideo({ width: 108, height: 192, seconds: 4 });
  files = await startHttpsServer((request, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const body = path === '/reel.mp4' ? reel : copies.get(path);
    if (!body) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': path.endsWith('.mp4') ? 'video/mp4' : 'image/jpeg', 'content-length': String(body.length) }).end(body);
  });
});
beforeEach(() => {
  credentials = {
    platform: 'instagram',
    accessToken: instagram.issueToken('long'),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    userId: instagram.account.userId,
  };
  instagram.requests.length = 0;
  instagram.containers.length = 0;
  instagram.media.length = 0;
  instagram.processingPolls = 0;
  instagram.timeOutAfterPublishing = 0;
  instagram.publishingLimit.usedBefore = 0;
  instagram.account.accountType = 'BUSINESS';
});
afterAll(async () => {
  await instagram?.close();
  await files?.close();
});

describe('Instagram connector', () => {
  it('when the token is a professional account’s, then verify names @username with the account id the posts are made under', async () => {
    expect(await connector.verify(credentials)).toEqual({ accountName: `@${instagram.account.username}`, accountId: instagram.account.userId });
  });

  it('when the account is a personal one, then verify refuses it, saying Instagram publishes only for business and creator accounts', async () => {
    instagram.account.accountType = 'PERSONAL';
    const error = await failureOf(connector.verify(credentials), SocialRejectedError);
    expect(error.reason).toMatch(/personal Instagram account; .* business and creator accounts$/);
  });

  it('when a 9:16 PNG is posted, then Instagram fetches a 4:5 JPEG of it, whole, with its alt text, and the post is made once', async () => {
    const post = imagePost();
    const published = await connector.publish(credentials, post, memorySessions());

    const [container] = instagram.containers;
    expect(container).toMatchObject({ mediaType: 'IMAGE', caption: post.text, altText: 'Boats coming home at dusk', status: 'PUBLISHED' });
    const sent = await sharp(container?.image?.bytes).metadata();
    expect({ format: sent.format, width: sent.width, height: sent.height }).toEqual({ format: 'jpeg', width: 1440, height: 1800 });
    expect(instagram.media).toHaveLength(1);
    expect(published).toEqual({ externalPostId: instagram.media[0]?.id, url: instagram.media[0]?.permalink });
  });

  it('when the dry run previews the images, then a 9:16 one is shown padded to 1440×1800 JPEG and a square one keeps its shape', async () => {
    const draft = (image: Buffer) => ({ text: 'Dusk', image: { bytes: image, contentType: 'image/png' as const, alt: '' } });
    expect((await connector.preview(draft(tall))).image).toMatchObject({ type: 'image/jpeg', width: 1440, height: 1800 });
    expect((await connector.preview(draft(square))).image).toMatchObject({ type: 'image/jpeg', width: 1080, height: 1080 });
    expect(instagram.requests).toHaveLength(0);
  });

  it('when a Reel is still processing, then the attempt stops for the timer and the next one publishes the same container', async () => {
    instagram.processingPolls = 1;
    const sessions = memorySessions();
    const post = reelPost();
    const waiting = await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    expect(waiting.detail).toBe('Instagram is processing the video.');

    await connector.publish(credentials, post, sessions);
    expect(instagram.containers).toHaveLength(1);
    expect(instagram.containers[0]).toMatchObject({ mediaType: 'REELS', shareToFeed: true, caption: post.text });
    expect(instagram.media).toEqual([expect.objectContaining({ mediaType: 'VIDEO', mediaProductType: 'REELS' })]);
  });

  it('when the account has used its publishing limit, then the post waits an hour and Instagram is given nothing', async () => {
    instagram.publishingLimit.usedBefore = instagram.publishingLimit.total;
    const error = await failureOf(connector.publish(credentials, imagePost(square), memorySessions()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(60 * 60 * 1000);
    expect(instagram.containers).toHaveLength(0);
  });

  it('when the dry run asks for the account’s standing, then it is the publishing limit as Instagram counts it', async () => {
    instagram.publishingLimit.usedBefore = 3;
    expect(await connector.standing?.(credentials)).toEqual({
      limits: [{ what: 'posts published through the API in the last 24 hours', used: 3, limit: instagram.publishingLimit.total }],
    });
  });

  it('when Instagram refuses the container, then the attempt fails for good with Instagram’s own words', async () => {
    instagram.script('create', [{ status: 400, code: 100, message: 'The media type is not supported.' }]);
    const error = await failureOf(connector.publish(credentials, imagePost(square), memorySessions()), SocialRejectedError);
    expect(error.reason).toBe('Instagram refused the post (400, code 100): The media type is not supported.');
  });

  it('when the caption carries more than 30 hashtags, then it is refused before Instagram is asked', async () => {
    const text = Array.from({ length: 31 }, (_, index) => `#tag${index}`).join(' ');
    const error = await failureOf(connector.publish(credentials, imagePost(square, { text }), memorySessions()), SocialRejectedError);
    expect(error.reason).toBe('Instagram takes at most 30 hashtags in a caption; this one has 31');
    expect(instagram.requests).toHaveLength(0);
  });

  it('when the answer to the publication is lost after Instagram made the post, then it is found, and a retry does not post again', async () => {
    const impatient = createInstagramConnector({ apiUrl: instagram.url, allowPrivateNetworks: true, timeoutMs: 500 });
    const sessions = memorySessions();
    const post = imagePost(square);
    instagram.timeOutAfterPublishing = 1;
    await failureOf(impatient.publish(credentials, post, sessions), SocialOutcomeUnknownError);

    const found = foundPost(await connector.findPublished?.(credentials, post.idempotencyKey, sessions));
    expect(found.externalPostId).toBe(instagram.media[0]?.id);
    expect(await connector.publish(credentials, post, sessions)).toMatchObject({ externalPostId: found.externalPostId });
    expect(instagram.media).toHaveLength(1);
  });

  it('when the token has expired, then publishing is refused as the credentials and nothing is made', async () => {
    instagram.expire(credentials.accessToken);
    const error = await failureOf(connector.publish(credentials, imagePost(square), memorySessions()), SocialRejectedError);
    expect(error.about).toBe('credentials');
    expect(error.reason).toMatch(/^Instagram rejected the access token \(\d+, code 190/);
    expect(instagram.containers).toHaveLength(0);
  });
});
