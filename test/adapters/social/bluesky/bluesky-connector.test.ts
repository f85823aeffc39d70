import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBlueskyConnector } from '../../../../src/adapters/social/bluesky/bluesky-connector.ts';
import {
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type BlueskyCredentials,
  type SessionStore,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startBlueskyServer, type BlueskyServer } from '../../../fakes/bluesky-server.ts';
import { failureOf, failuresOneAtATime } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';

let bluesky: BlueskyServer;
let connector: SocialConnector;
let credentials: BlueskyCredentials;
let png: Buffer;

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: 'Spring collection is here',
    image: { bytes: png, contentType: 'image/png', alt: 'Three jackets on a rail' },
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

const calls = (nsid: string) => bluesky.requests.filter((request) => request.nsid === nsid);

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

describe('Bluesky connector: failures a real PDS cannot be made to give', () => {
  it.each([
    ['uploadBlob', 'BlobTooLarge', 'This file is too large.', 'Bluesky refused the image (400 BlobTooLarge): This file is too large.'],
    [
      'createRecord',
      'InvalidRequest',
      'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes',
      'Bluesky refused the post (400 InvalidRequest): Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes',
    ],
  ] as const)("when Bluesky answers %s with 400 %s, then it is rejected with Bluesky's message", async (endpoint, name, message, reason) => {
    bluesky.script(endpoint, [{ status: 400, error: name, message }]);
    const error = await failureOf(connector.publish(credentials, postWith()), SocialRejectedError);
    expect(error.reason).toBe(reason);
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
    bluesky.script('uploadBlob', [{ delayMs: 2_000 }]);
    const impatient = createBlueskyConnector({ allowPrivateNetworks: true, timeoutMs: 200 });
    const error = await failureOf(impatient.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Bluesky server did not answer within 0.2 s');
  });
});

/** A session store in memory holding the account's session, its access token replaced by one that expired. */
async function storeWithExpiredSession(): Promise<SessionStore & { text: string }> {
  const { session } = await connector.verify(credentials);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const expired = `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) - 60 })}.x`;
  const store = {
    key: randomUUID(),
    text: JSON.stringify({ ...JSON.parse(session!), accessJwt: expired }),
    read: () => Promise.resolve(store.text),
    async renew(renewal: (stored: string | undefined) => Promise<string>) {
      store.text = await renewal(store.text);
      return store.text;
    },
  };
  bluesky.requests.length = 0;
  return store;
}

describe('Bluesky connector: sessions', () => {
  it('when the stored access token has expired, then the session is refreshed, stored and used', async () => {
    const store = await storeWithExpiredSession();
    await connector.publish(credentials, postWith(), store);
    expect(calls('com.atproto.server.refreshSession')).toHaveLength(1);
    expect(calls('com.atproto.server.createSession')).toHaveLength(0);
    const { accessJwt } = JSON.parse(store.text) as { accessJwt: string };
    expect(calls('com.atproto.repo.createRecord')[0]?.headers.authorization).toBe(`Bearer ${accessJwt}`);
  });

  it('when Bluesky answers ExpiredToken to a call, then the session is refreshed and the call sent once more', async () => {
    bluesky.script('createRecord', [{ status: 400, error: 'ExpiredToken', message: 'Token has expired' }]);
    await connector.publish(credentials, postWith(), await storeWithExpiredSession());
    expect(calls('com.atproto.server.refreshSession')).toHaveLength(2);
    expect(calls('com.atproto.repo.createRecord')).toHaveLength(2);
    expect(bluesky.records).toHaveLength(1);
  });

  it('when Bluesky answers 502 to refreshSession, then it reports Bluesky unavailable and keeps the stored session', async () => {
    const store = await storeWithExpiredSession();
    const before = store.text;
    bluesky.script('refreshSession', [{ status: 502 }]);
    const error = await failureOf(connector.publish(credentials, postWith(), store));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(calls('com.atproto.server.createSession')).toHaveLength(0);
    expect(store.text).toBe(before);
  });

  it('when the refresh token is refused, then a new session is created', async () => {
    const store = await storeWithExpiredSession();
    bluesky.script('refreshSession', [{ status: 400, error: 'ExpiredToken', message: 'Token has been revoked' }]);
    await connector.publish(credentials, postWith(), store);
    expect(calls('com.atproto.server.createSession')).toHaveLength(1);
    expect(bluesky.records).toHaveLength(1);
  });
});

describe('Bluesky connector: no double posts', () => {
  it('when an older PDS says a record is missing as InvalidRequest "Could not locate record", then the post is created', async () => {
    bluesky.script('getRecord', [
      { status: 400, error: 'InvalidRequest', message: 'Could not locate record: at://did:plc:x/app.bsky.feed.post/3aaaaaaaaaaaa' },
    ]);
    await connector.publish(credentials, postWith());
    expect(bluesky.records).toHaveLength(1);
  });

  it('when looking for an earlier record fails otherwise, then nothing is created', async () => {
    bluesky.script('getRecord', [{ status: 400, error: 'InvalidRequest', message: 'Could not find repo' }]);
    const error = await failureOf(connector.publish(credentials, postWith()), SocialRejectedError);
    expect(error.reason).toBe('Bluesky refused to look up the post (400 InvalidRequest): Could not find repo');
    expect(bluesky.records).toHaveLength(0);
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

  it('when the connection closes after createRecord was sent, then the outcome is unknown, and findPublished finds the record by its key', async () => {
    bluesky.script('createRecord', [{ dropped: true }]);
    const post = postWith();
    const error = await failureOf(connector.publish(credentials, post), SocialOutcomeUnknownError);
    expect(error.message).toBe('Bluesky server closed the connection after the request was sent');
    expect(bluesky.records).toHaveLength(1);

    expect(await connector.findPublished!(credentials, post.idempotencyKey)).toEqual({
      externalPostId: bluesky.records[0]!.uri,
      url: expect.stringMatching(/^https:\/\/bsky\.app\/profile\//),
      replyRef: bluesky.records[0]!.cid,
    });
    expect(await connector.findPublished!(credentials, randomUUID())).toBeNull();
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
    const refusals = await failuresOneAtATime([() => guarded.verify(credentials), () => guarded.publish(credentials, postWith())], SocialRejectedError);
    expect(refusals.map((error) => error.reason)).toEqual(['Bluesky host is a private address', 'Bluesky host is a private address']);
    expect(bluesky.requests).toHaveLength(0);
  });

  it('when the service redirects, then it is refused without following', async () => {
    bluesky.script('createSession', [{ status: 302, location: 'https://elsewhere.example/xrpc/com.atproto.server.createSession' }]);
    const error = await failureOf(connector.verify(credentials), SocialRejectedError);
    expect(error.reason).toBe("Bluesky redirected the request (302) to https://elsewhere.example: use the service's own address");
    expect(bluesky.requests).toHaveLength(1);
  });

  it('when the service URL uses http, then it is refused before any request', async () => {
    const error = await failureOf(connector.publish({ ...credentials, serviceUrl: bluesky.url.replace('https:', 'http:') }, postWith()), SocialRejectedError);
    expect(error.reason).toBe('Bluesky service URL must use https');
    expect(bluesky.requests).toHaveLength(0);
  });
});

describe('Bluesky connector: preview', () => {
  it('when a post with a 6 MB image is previewed, then it gives the record text and the JPEG that publishing sends, asking nothing', async () => {
    const large = await sharp(randomBytes(1420 * 1420 * 3), { raw: { width: 1420, height: 1420, channels: 3 } })
      .png()
      .toBuffer();
    expect(large.length).toBeGreaterThan(6_000_000);
    const post = postWith({ text: '港'.repeat(400), image: { bytes: large, contentType: 'image/png', alt: 'Static' } });

    const preview = await connector.preview(post);
    expect(bluesky.requests).toHaveLength(0);
    expect(preview.text).toBe(`${'港'.repeat(299)}…`);
    expect(preview.count).toBe(300);
    expect(preview.image).toMatchObject({ type: 'image/jpeg', width: 1420, height: 1420 });
    expect(preview.image!.bytes).toBeLessThanOrEqual(2_000_000);

    await connector.publish(credentials, post);
    expect(bluesky.records[0]?.value.text).toBe(preview.text);
    expect(bluesky.blobs.map((blob) => [blob.mimeType, blob.bytes.length])).toEqual([['image/jpeg', preview.image!.bytes]]);
  });
});
