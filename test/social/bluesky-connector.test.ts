import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBlueskyConnector } from '../../src/social/bluesky-connector.ts';
import {
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type BlueskyCredentials,
  type SocialConnector,
  type SocialPost,
} from '../../src/social/social-connector.ts';
import { startBlueskyServer, type BlueskyServer } from '../fakes/bluesky-server.ts';
import { failureOf } from '../support/failure-of.ts';
import { makeImage } from '../support/images.ts';

let bluesky: BlueskyServer;
let connector: SocialConnector;
let credentials: BlueskyCredentials;
let png: Buffer;

const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: 'Spring collection is here', image: { bytes: png, contentType: 'image/png', alt: 'Three jackets on a rail' }, idempotencyKey: randomUUID(), ...overrides };
}

const calls = (nsid: string) => bluesky.requests.filter((request) => request.nsid === nsid);
const recordText = (index = 0) => bluesky.records[index]?.value.text as string;

/** A PNG of random pixels: incompressible, so even as a JPEG at quality 90 it is over Bluesky's 2,000,000 bytes. */
function noisePng(size: number): Promise<Buffer> {
  return sharp(randomBytes(size * size * 3), { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
}

beforeAll(async () => {
  bluesky = await startBlueskyServer();
  connector = createBlueskyConnector({ allowPrivateNetworks: true });
  credentials = { platform: 'bluesky', serviceUrl: bluesky.url, handle: bluesky.handle, appPassword: bluesky.appPassword };
  png = await makeImage('png');
});
beforeEach(() => {
  bluesky.requests.length = 0;
  bluesky.records.length = 0;
  bluesky.blobs.length = 0;
});
afterAll(() => bluesky?.close());

describe('Bluesky connector: verify', () => {
  it.each([
    ['the handle', () => bluesky.handle],
    ['the handle written as a mention', () => `@${bluesky.handle}`],
  ])('when %s and app password are right, then it names the account by handle and gives its DID', async (_case, handle) => {
    const account = await connector.verify({ ...credentials, handle: handle() });
    expect(account).toEqual({ accountName: bluesky.handle, accountId: bluesky.did });
    expect(calls('com.atproto.server.createSession')).toHaveLength(1);
  });

  it('when the app password is wrong, then it is rejected with Bluesky\'s reason and without the password', async () => {
    const wrongPassword = 'zzzz-yyyy-xxxx-wwww';
    const error = await failureOf(connector.verify({ ...credentials, appPassword: wrongPassword }));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toBe(
      'Bluesky rejected the handle or app password (401 AuthenticationRequired): Invalid identifier or password',
    );
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: error.cause })).not.toContain(wrongPassword);
  });
});

describe('Bluesky connector: publish', () => {
  it('when the post has an image, then it uploads the blob and creates a post record embedding it with its alt text', async () => {
    const published = await connector.publish(credentials, postWith());

    expect(bluesky.blobs).toHaveLength(1);
    expect(bluesky.blobs[0]?.mimeType).toBe('image/png');
    expect(bluesky.blobs[0]?.bytes.equals(png)).toBe(true);
    expect(bluesky.records).toHaveLength(1);
    const [record] = bluesky.records;
    expect(record?.rkey).toMatch(tidPattern);
    expect(record?.value).toEqual({
      $type: 'app.bsky.feed.post',
      text: 'Spring collection is here',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      embed: {
        $type: 'app.bsky.embed.images',
        images: [
          {
            image: { $type: 'blob', ref: { $link: bluesky.blobs[0]?.cid }, mimeType: 'image/png', size: png.length },
            alt: 'Three jackets on a rail',
            aspectRatio: { width: 64, height: 64 },
          },
        ],
      },
    });
    expect(published).toEqual({ externalPostId: record?.uri, url: `https://bsky.app/profile/${bluesky.handle}/post/${record?.rkey}` });
    expect(record?.uri).toBe(`at://${bluesky.did}/app.bsky.feed.post/${record?.rkey}`);
    for (const nsid of ['com.atproto.repo.uploadBlob', 'com.atproto.repo.createRecord']) {
      expect(calls(nsid)[0]?.headers.authorization).toMatch(/^Bearer fake-access-/);
    }
  });

  it('when the post has no image, then it creates a post record without an embed', async () => {
    await connector.publish(credentials, postWith({ image: undefined }));
    expect(bluesky.blobs).toHaveLength(0);
    expect(bluesky.records[0]?.value).not.toHaveProperty('embed');
  });

  it('when the image is over 2,000,000 bytes, then it is re-encoded as a JPEG that fits, at lower quality as needed', async () => {
    const large = await noisePng(1800);
    expect(large.length).toBeGreaterThan(2_000_000);
    expect((await sharp(large).jpeg({ quality: 90 }).toBuffer()).length).toBeGreaterThan(2_000_000);

    await connector.publish(credentials, postWith({ image: { bytes: large, contentType: 'image/png', alt: 'Static' } }));
    const [blob] = bluesky.blobs;
    expect(blob?.mimeType).toBe('image/jpeg');
    expect(blob?.bytes.length).toBeLessThanOrEqual(2_000_000);
    expect(await sharp(blob?.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 1800, height: 1800 });
    expect(bluesky.records).toHaveLength(1);
  });

  it.each([
    ['ASCII', 'a'.repeat(400), `${'a'.repeat(299)}…`],
    ['emoji of several code points', '👍🏽'.repeat(400), `${'👍🏽'.repeat(299)}…`],
  ])('when the text (%s) is longer than 300 graphemes, then it is cut to 300 ending in an ellipsis', async (_kind, text, expected) => {
    await connector.publish(credentials, postWith({ text }));
    expect(recordText()).toBe(expected);
  });

  it('when 300 graphemes are more than 3000 bytes, then the text is cut to fit the bytes too', async () => {
    const family = '👩‍👩‍👧‍👦';
    await connector.publish(credentials, postWith({ text: family.repeat(300) }));
    const text = recordText();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3_000);
    expect(text).toBe(`${family.repeat(Math.floor((3_000 - Buffer.byteLength('…')) / Buffer.byteLength(family)))}…`);
  });

  it('when the text is exactly 300 graphemes, then it is posted unchanged', async () => {
    const text = 'b'.repeat(300);
    await connector.publish(credentials, postWith({ text }));
    expect(recordText()).toBe(text);
  });

  it('when the app password is wrong, then publishing is rejected and nothing is uploaded or created', async () => {
    const error = await failureOf(connector.publish({ ...credentials, appPassword: 'revoked' }, postWith()));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toMatch(/^Bluesky rejected the handle or app password \(401 AuthenticationRequired\)/);
    expect(bluesky.blobs).toHaveLength(0);
    expect(bluesky.records).toHaveLength(0);
  });

  it.each([
    ['uploadBlob', 'BlobTooLarge', 'This file is too large.', 'Bluesky refused the image (400 BlobTooLarge): This file is too large.'],
    ['createRecord', 'InvalidRequest', 'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes', 'Bluesky refused the post (400 InvalidRequest): Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes'],
  ] as const)('when Bluesky answers %s with 400 %s, then it is rejected with Bluesky\'s message', async (endpoint, name, message, reason) => {
    bluesky.script(endpoint, [{ status: 400, error: name, message }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toBe(reason);
    expect(bluesky.records).toHaveLength(0);
  });

  it.each([
    ['Retry-After', { retryAfter: '30' }, 30_000, 30_000],
    ['only ratelimit-reset', { rateLimitReset: String(Math.floor(Date.now() / 1000) + 300) }, 290_000, 300_000],
    ['no hint', {}, 60_000, 60_000],
  ])('when Bluesky answers 429 with %s, then it asks to retry after that long', async (_case, hints, atLeast, atMost) => {
    bluesky.script('createSession', [{ status: 429, ...hints }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialRateLimitedError);
    expect(error.message).toBe('Bluesky rate limit reached (429 RateLimitExceeded): Rate Limit Exceeded');
    expect((error as SocialRateLimitedError).retryAfterMs).toBeGreaterThanOrEqual(atLeast);
    expect((error as SocialRateLimitedError).retryAfterMs).toBeLessThanOrEqual(atMost);
  });

  it.each(['createSession', 'uploadBlob', 'createRecord'] as const)('when Bluesky answers 502 to %s, then it reports Bluesky unavailable', async (endpoint) => {
    bluesky.script(endpoint, [{ status: 502 }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Bluesky is unavailable (502 UpstreamFailure): Upstream Failure');
    expect(bluesky.records).toHaveLength(0);
  });

  it('when Bluesky does not answer in time, then it reports Bluesky unavailable', async () => {
    bluesky.script('createRecord', [{ delayMs: 2_000 }]);
    const impatient = createBlueskyConnector({ allowPrivateNetworks: true, timeoutMs: 200 });
    const error = await failureOf(impatient.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Bluesky server did not answer within 0.2 s');
  });
});

describe('Bluesky connector: no double posts', () => {
  it('when one publication is published twice, then the second finds the first record instead of creating another', async () => {
    const post = postWith();
    const first = await connector.publish(credentials, post);
    const second = await connector.publish(credentials, post);

    expect(second).toEqual(first);
    expect(bluesky.records).toHaveLength(1);
    expect(calls('com.atproto.repo.createRecord')).toHaveLength(1);
    expect(bluesky.blobs).toHaveLength(1);
  });

  it('when an older PDS says a record is missing as InvalidRequest "Could not locate record", then the post is created', async () => {
    bluesky.script('getRecord', [{ status: 400, error: 'InvalidRequest', message: 'Could not locate record: at://did:plc:x/app.bsky.feed.post/3aaaaaaaaaaaa' }]);
    await connector.publish(credentials, postWith());
    expect(bluesky.records).toHaveLength(1);
  });

  it('when looking for an earlier record fails otherwise, then nothing is created', async () => {
    bluesky.script('getRecord', [{ status: 400, error: 'InvalidRequest', message: 'Could not find repo' }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toBe('Bluesky refused to look up the post (400 InvalidRequest): Could not find repo');
    expect(bluesky.records).toHaveLength(0);
  });

  it('when two publications are published, then each gets its own record key', async () => {
    await connector.publish(credentials, postWith());
    await connector.publish(credentials, postWith());
    expect(bluesky.records).toHaveLength(2);
    expect(bluesky.records[0]?.rkey).not.toBe(bluesky.records[1]?.rkey);
  });

  it('when the record was created but the answer was lost (500), then it finds the record and reports it published', async () => {
    bluesky.script('createRecord', [{ status: 500, applied: true }]);
    const post = postWith();
    const published = await connector.publish(credentials, post);

    expect(bluesky.records).toHaveLength(1);
    expect(published.externalPostId).toBe(bluesky.records[0]?.uri);
    expect(await connector.publish(credentials, post)).toEqual(published);
    expect(bluesky.records).toHaveLength(1);
  });

  it('when the record was created but the attempt failed before it could look, then the retry returns that record', async () => {
    bluesky.script('createRecord', [{ status: 500, applied: true }]);
    bluesky.script('getRecord', [{}, { status: 503 }]);
    const post = postWith();
    const error = await failureOf(connector.publish(credentials, post));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(bluesky.records).toHaveLength(1);

    const retried = await connector.publish(credentials, post);
    expect(retried.externalPostId).toBe(bluesky.records[0]?.uri);
    expect(bluesky.records).toHaveLength(1);
    expect(calls('com.atproto.repo.createRecord')).toHaveLength(1);
  });

  it('when the look-up misses a record that exists and creating it conflicts, then it reports that record', async () => {
    const post = postWith();
    const first = await connector.publish(credentials, post);
    bluesky.script('getRecord', [{ status: 400, error: 'RecordNotFound', message: 'Could not locate record' }]);

    expect(await connector.publish(credentials, post)).toEqual(first);
    expect(bluesky.records).toHaveLength(1);
    expect(calls('com.atproto.repo.createRecord')).toHaveLength(2);
  });
});

describe('Bluesky connector: service address', () => {
  it('when the service is on a private network and that is not allowed, then it is refused and nothing is sent', async () => {
    const guarded = createBlueskyConnector({ allowPrivateNetworks: false });
    for (const attempt of [guarded.verify(credentials), guarded.publish(credentials, postWith())]) {
      const error = await failureOf(attempt);
      expect(error).toBeInstanceOf(SocialRejectedError);
      expect((error as SocialRejectedError).reason).toBe('Bluesky host is a private address');
    }
    expect(bluesky.requests).toHaveLength(0);
  });

  it('when the service redirects, then it is refused without following', async () => {
    bluesky.script('createSession', [{ status: 302, location: 'https://elsewhere.example/xrpc/com.atproto.server.createSession' }]);
    const error = await failureOf(connector.verify(credentials));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toBe("Bluesky redirected the request (302): use the service's own address");
    expect(bluesky.requests).toHaveLength(1);
  });

  it('when the service URL uses http, then it is refused before any request', async () => {
    const error = await failureOf(connector.publish({ ...credentials, serviceUrl: bluesky.url.replace('https:', 'http:') }, postWith()));
    expect(error).toBeInstanceOf(SocialRejectedError);
    expect((error as SocialRejectedError).reason).toBe('Bluesky service URL must use https');
    expect(bluesky.requests).toHaveLength(0);
  });
});
