import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMastodonConnector } from '../../../../src/adapters/social/mastodon/mastodon-connector.ts';
import { callSessionStore } from '../../../../src/adapters/social/call-session-store.ts';
import {
  MediaStillProcessing,
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type MastodonCredentials,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startMastodonServer, type MastodonServer } from '../../../fakes/mastodon-server.ts';
import { failureOf, failuresOneAtATime } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let mastodon: MastodonServer;
let connector: SocialConnector;
let credentials: MastodonCredentials;
let png: Buffer;
let defaultStatusUrl: MastodonServer['statusUrlOf'];

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: 'Spring collection is here',
    image: { bytes: png, contentType: 'image/png', alt: 'Three jackets on a rail' },
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

const polls = () => mastodon.requests.filter((request) => request.method === 'GET' && request.path.startsWith('/api/v1/media/'));

beforeAll(async () => {
  mastodon = await startMastodonServer();
  connector = createMastodonConnector({ allowPrivateNetworks: true });
  credentials = { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token };
  png = await makeImage('png');
  defaultStatusUrl = mastodon.statusUrlOf;
});
beforeEach(() => {
  mastodon.requests.length = 0;
  mastodon.statuses.length = 0;
  mastodon.media.length = 0;
  mastodon.processingPolls = 0;
  mastodon.statusUrlOf = defaultStatusUrl;
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(() => mastodon?.close());

describe('Mastodon connector: verify', () => {
  it('when the token is valid, then it names the account @user@instance and gives its id', async () => {
    const account = await connector.verify(credentials);
    expect(account).toEqual({ accountName: `@alice@${new URL(mastodon.url).host}`, accountId: mastodon.account.id });
    expect(mastodon.requests).toMatchObject([{ method: 'GET', path: '/api/v1/accounts/verify_credentials' }]);
    expect(mastodon.requests[0]?.headers.authorization).toBe(`Bearer ${mastodon.token}`);
  });

  it('when the URL points at a page of the instance, then the API at its root is used', async () => {
    await connector.verify({ ...credentials, instanceUrl: `${mastodon.url}/@alice/` });
    expect(mastodon.requests[0]?.path).toBe('/api/v1/accounts/verify_credentials');
  });

  it("when the token is wrong, then it is rejected with Mastodon's reason and without the token", async () => {
    const wrongToken = 'wrong-token-0123456789';
    const error = await failureOf(connector.verify({ ...credentials, accessToken: wrongToken }), SocialRejectedError);
    expect(error.reason).toBe('Mastodon rejected the access token (401): The access token is invalid');
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: error.cause })).not.toContain(wrongToken);
  });
});

describe("Mastodon connector: the token's scopes", () => {
  // https://docs.joinmastodon.org/methods/accounts/#verify_credentials: "User token + `profile` or `read:accounts`".
  it('when the token has only write:statuses and write:media, then connecting is refused naming the scopes it needs', async () => {
    const scoped = await startMastodonServer({ scopes: ['write:statuses', 'write:media'] });
    try {
      const error = await failureOf(connector.verify({ platform: 'mastodon', instanceUrl: scoped.url, accessToken: scoped.token }), SocialRejectedError);
      expect(error.reason).toBe(
        'Mastodon refused the request (403): This action is outside the authorized scopes; the access token needs the scopes read:accounts write:statuses write:media',
      );
    } finally {
      await scoped.close();
    }
  });

  it.each([[['profile', 'write:statuses', 'write:media']], [['read', 'write']]])('when the token has %j, then it connects and posts', async (scopes) => {
    const scoped = await startMastodonServer({ scopes });
    try {
      const instance = { platform: 'mastodon' as const, instanceUrl: scoped.url, accessToken: scoped.token };
      await connector.verify(instance);
      await connector.publish(instance, postWith());
      expect(scoped.statuses).toHaveLength(1);
    } finally {
      await scoped.close();
    }
  });
});

describe('Mastodon connector: publish', () => {
  it('when the post has an image Mastodon processes at once, then it uploads it with its alt text and posts a public status with it', async () => {
    const post = postWith();
    const published = await connector.publish(credentials, post);

    expect(mastodon.media).toHaveLength(1);
    expect(mastodon.media[0]).toMatchObject({ contentType: 'image/png', description: 'Three jackets on a rail' });
    expect(mastodon.media[0]?.bytes.equals(png)).toBe(true);
    expect(mastodon.statuses).toHaveLength(1);
    const [status] = mastodon.statuses;
    expect(status).toMatchObject({ text: 'Spring collection is here', visibility: 'public', idempotencyKey: post.idempotencyKey });
    expect(status?.media.map((media) => media.id)).toEqual([mastodon.media[0]?.id]);
    expect(published).toEqual({ externalPostId: status?.id, url: status?.url });
    expect(polls()).toHaveLength(0);
  });

  it('when a part of a thread replies to the part before, then the status names it as in_reply_to_id', async () => {
    const root = await connector.publish(credentials, postWith({ text: 'Part one (1/2)' }));
    const reply = await connector.publish(credentials, postWith({ text: 'Part two (2/2)', image: undefined, replyTo: { root, parent: root } }));
    expect(mastodon.statuses.map((status) => [status.id, status.inReplyToId])).toEqual([
      [root.externalPostId, null],
      [reply.externalPostId, root.externalPostId],
    ]);
  });

  it('when the status replied to does not exist, then Mastodon refuses the reply (404) and nothing is posted', async () => {
    const parent = { externalPostId: '1' };
    const error = await failureOf(connector.publish(credentials, postWith({ image: undefined, replyTo: { root: parent, parent } })), SocialRejectedError);
    expect(error.reason).toBe('Mastodon refused the post (404): Record not found');
    expect(mastodon.statuses).toHaveLength(0);
  });

  it.each([
    ['a javascript: URL', 'javascript:alert(document.cookie)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['an http: URL', 'http://mastodon.example/@alice/1'],
    ['not a URL', 'see my profile'],
  ])('when the status comes back with %s, then the post is published without a link', async (_case, url) => {
    mastodon.statusUrlOf = () => url;
    const published = await connector.publish(credentials, postWith());
    expect(mastodon.statuses[0]?.url).toBe(url);
    expect(published).toEqual({ externalPostId: mastodon.statuses[0]?.id, url: undefined });
  });

  it('when the image is over 16 MB, then Mastodon refuses it (422) and no status is posted', async () => {
    const large = Buffer.concat([png, Buffer.alloc(16 * 1024 * 1024)]);
    const error = await failureOf(
      connector.publish(credentials, postWith({ image: { bytes: large, contentType: 'image/png', alt: 'Too large' } })),
      SocialRejectedError,
    );
    expect(error.reason).toBe('Mastodon refused the image (422): Validation failed: File file size must be less than 16 MB');
    expect(mastodon.statuses).toHaveLength(0);
  });

  it('when the post has no image, then it posts the text alone', async () => {
    await connector.publish(credentials, postWith({ image: undefined }));
    expect(mastodon.media).toHaveLength(0);
    expect(mastodon.statuses).toMatchObject([{ text: 'Spring collection is here', media: [] }]);
  });

  it('when Mastodon processes the image in the background (202, then 206), then each attempt stops until it is ready, and the last posts it, uploaded once', async () => {
    mastodon.processingPolls = 1;
    const sessions = callSessionStore();
    const post = postWith();
    const first = await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    expect(first.detail).toBe(`Uploaded the image (${(png.length / 1_000_000).toFixed(1)} MB); Mastodon is processing it.`);
    expect(first.checkAfterMs).toBe(2_000);
    expect(await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing)).toMatchObject({
      detail: 'Mastodon is still processing the image.',
    });
    const published = await connector.publish(credentials, post, sessions);

    expect(mastodon.media).toHaveLength(1);
    expect(polls()).toHaveLength(2);
    const paths = mastodon.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths.at(-1)).toBe('POST /api/v1/statuses');
    expect(mastodon.statuses).toMatchObject([{ id: published.externalPostId, media: [{ id: mastodon.media[0]?.id }] }]);
    // The note of the upload went with the post.
    expect(JSON.parse((await sessions.read())!)).toEqual({ media: {} });
  });

  it('when the media is still processing half an hour after its upload, then the publication fails for good and posts nothing', async () => {
    mastodon.processingPolls = 1_000;
    const sessions = callSessionStore();
    const post = postWith();
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31 * 60_000 });
    const error = await failureOf(connector.publish(credentials, post, sessions), SocialRejectedError);
    expect(error.reason).toBe('Mastodon was still processing the image 30 minutes after it was uploaded');
    expect(mastodon.statuses).toHaveLength(0);
  });

  it('when the server dropped the noted media, then it is uploaded again', async () => {
    mastodon.processingPolls = 1;
    const sessions = callSessionStore();
    const post = postWith();
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    mastodon.media.length = 0;
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await connector.publish(credentials, post, sessions);
    expect(mastodon.requests.filter((request) => request.path === '/api/v2/media')).toHaveLength(2);
    expect(mastodon.statuses).toHaveLength(1);
  });

  it('when a post has a video, then it is streamed with its description, processed in the background, and the status carries it', async () => {
    const mp4 = makeVideo();
    const sessions = callSessionStore();
    const post = postWith({ image: undefined, video: socialVideoOf(mp4, { alt: 'Lights on the quay' }) });
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    const published = await connector.publish(credentials, post, sessions);
    expect(mastodon.media).toMatchObject([{ contentType: 'video/mp4', fileName: 'video.mp4', description: 'Lights on the quay' }]);
    expect(mastodon.media[0]!.bytes.equals(mp4)).toBe(true);
    expect(mastodon.statuses).toMatchObject([{ id: published.externalPostId, media: [{ id: mastodon.media[0]!.id }] }]);
  });

  it("when the video is over the instance's 99 MB, then Mastodon refuses it for good, in its words", async () => {
    const mp4 = makeVideo();
    const large = Buffer.concat([mp4, Buffer.alloc(103_809_024 - mp4.length + 1)]);
    expect(connector.declaration.video?.maxBytes).toBe(103_809_024);
    const error = await failureOf(connector.publish(credentials, postWith({ image: undefined, video: socialVideoOf(large) })), SocialRejectedError);
    expect(error.reason).toBe('Mastodon refused the video (422): Validation failed: File file size must be less than 99 MB');
    expect(mastodon.media).toHaveLength(0);
  });

  it.each([
    ['ASCII', 'a'.repeat(600), 'a'.repeat(499)],
    ['emoji of several code points', '👩‍👩‍👧'.repeat(600), '👩‍👩‍👧'.repeat(499)],
  ])('when the text (%s) is longer than 500 characters, then it is cut to 500 ending in an ellipsis', async (_kind, text, kept) => {
    await connector.publish(credentials, postWith({ text }));
    expect(mastodon.statuses[0]?.text).toBe(`${kept}…`);
  });

  it('when the text is exactly 500 characters, then it is posted unchanged', async () => {
    const text = `${'word '.repeat(99)}last`.padEnd(500, '!');
    await connector.publish(credentials, postWith({ text }));
    expect(mastodon.statuses[0]?.text).toBe(text);
  });

  it('when the text has links longer than Mastodon counts them (23 characters each), then it is posted whole', async () => {
    const link = `https://example.com/${'a'.repeat(300)}`;
    const text = `${'word '.repeat(80)}${link} #spring`;
    await connector.publish(credentials, postWith({ text }));
    expect(mastodon.statuses[0]?.text).toBe(text);
  });

  it('when the text is cut after a space, then the space goes before the ellipsis', async () => {
    await connector.publish(credentials, postWith({ text: `${'a'.repeat(498)} bbbbbb` }));
    expect(mastodon.statuses[0]?.text).toBe(`${'a'.repeat(498)}…`);
  });

  it('when the token is wrong, then publishing is rejected and nothing is uploaded or posted', async () => {
    const error = await failureOf(connector.publish({ ...credentials, accessToken: 'revoked' }, postWith()), SocialRejectedError);
    expect(error.reason).toBe('Mastodon rejected the access token (401): The access token is invalid');
    expect(mastodon.media).toHaveLength(0);
    expect(mastodon.statuses).toHaveLength(0);
  });

  it.each([
    [
      'statuses',
      403,
      'This action is outside the authorized scopes',
      'Mastodon refused the post (403): This action is outside the authorized scopes; the access token needs the scopes read:accounts write:statuses write:media',
    ],
    [
      'statuses',
      422,
      'Validation failed: Text character limit of 500 exceeded',
      'Mastodon refused the post (422): Validation failed: Text character limit of 500 exceeded',
    ],
    ['media', 422, 'Validation failed: File content type is invalid', 'Mastodon refused the image (422): Validation failed: File content type is invalid'],
  ] as const)("when Mastodon answers %s with %i, then it is rejected with Mastodon's message", async (endpoint, status, message, reason) => {
    mastodon.script(endpoint, [{ status, error: message }]);
    const error = await failureOf(connector.publish(credentials, postWith()), SocialRejectedError);
    expect(error.reason).toBe(reason);
  });

  // The times are taken when the test runs, not when the file is collected: a busy machine may take longer than
  // the bounds' margin in between.
  it.each([
    ['Retry-After in seconds', () => ({ retryAfter: '30' }), 30_000, 30_000],
    ['Retry-After as an HTTP date', () => ({ retryAfter: new Date(Date.now() + 120_000).toUTCString() }), 110_000, 120_000],
    ['only X-RateLimit-Reset', () => ({ rateLimitReset: new Date(Date.now() + 90_000).toISOString() }), 80_000, 90_000],
    ['no hint', () => ({}), 60_000, 60_000],
  ])('when Mastodon answers 429 with %s, then it asks to retry after that long', async (_case, hints, atLeast, atMost) => {
    mastodon.script('statuses', [{ status: 429, ...hints() }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialRateLimitedError);
    expect(error.message).toBe('Mastodon rate limit reached (429): Too many requests');
    expect((error as SocialRateLimitedError).retryAfterMs).toBeGreaterThanOrEqual(atLeast);
    expect((error as SocialRateLimitedError).retryAfterMs).toBeLessThanOrEqual(atMost);
  });

  it.each(['media', 'statuses'] as const)('when Mastodon answers 503 to %s, then it reports Mastodon unavailable', async (endpoint) => {
    mastodon.script(endpoint, [{ status: 503 }]);
    const error = await failureOf(connector.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Mastodon is unavailable (503): Service Unavailable');
  });

  it('when Mastodon does not answer in time, then it reports Mastodon unavailable', async () => {
    mastodon.script('media', [{ delayMs: 2_000 }]);
    const impatient = createMastodonConnector({ allowPrivateNetworks: true, timeoutMs: 200 });
    const error = await failureOf(impatient.publish(credentials, postWith()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Mastodon server did not answer within 0.2 s');
  });

  it('when Mastodon answers with a body that never ends, then it stops reading at 1 MB and reports Mastodon unavailable', async () => {
    mastodon.script('verify_credentials', [{ endless: true }]);
    const error = await failureOf(connector.verify(credentials));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toBe('Mastodon server answered with more than 1 MB');
  });

  it('when the status was created but the answer was lost (500), then the retried publish gets that status and no second one', async () => {
    mastodon.script('statuses', [{ status: 500, applied: true }]);
    const post = postWith();
    const error = await failureOf(connector.publish(credentials, post));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(mastodon.statuses).toHaveLength(1);

    const retried = await connector.publish(credentials, post);
    expect(mastodon.statuses).toHaveLength(1);
    expect(retried).toEqual({ externalPostId: mastodon.statuses[0]?.id, url: mastodon.statuses[0]?.url });
  });

  it('when the connection closes after the status was sent, then the outcome is unknown, findPublished has no look-up, and the retry with the key gets that status', async () => {
    mastodon.script('statuses', [{ dropped: true }]);
    const post = postWith();
    const error = await failureOf(connector.publish(credentials, post), SocialOutcomeUnknownError);
    expect(error.message).toBe('Mastodon server closed the connection after the request was sent');
    expect(mastodon.statuses).toHaveLength(1);

    expect(await connector.findPublished!(credentials, post.idempotencyKey)).toBeNull();
    expect((await connector.publish(credentials, post)).externalPostId).toBe(mastodon.statuses[0]?.id);
    expect(mastodon.statuses).toHaveLength(1);
  });

  it('when one publication is published twice, then there is one status, and a different publication makes another', async () => {
    const post = postWith();
    const first = await connector.publish(credentials, post);
    const second = await connector.publish(credentials, post);
    expect(second).toEqual(first);
    expect(mastodon.statuses).toHaveLength(1);

    await connector.publish(credentials, postWith());
    expect(mastodon.statuses).toHaveLength(2);
  });
});

describe('Mastodon connector: instance address', () => {
  it.each([
    ['an IP address', () => mastodon.url, 'Mastodon host is a private address'],
    ['a name', () => mastodon.url.replace('127.0.0.1', 'localhost'), 'Mastodon host does not resolve to a public address'],
  ])('when the instance is on a private network (%s) and that is not allowed, then it is refused and nothing is sent', async (_case, url, reason) => {
    const guarded = createMastodonConnector({ allowPrivateNetworks: false });
    const instance = { ...credentials, instanceUrl: url() };
    const refusals = await failuresOneAtATime([() => guarded.verify(instance), () => guarded.publish(instance, postWith())], SocialRejectedError);
    expect(refusals.map((error) => error.reason)).toEqual([reason, reason]);
    expect(mastodon.requests).toHaveLength(0);
  });

  it('when the instance redirects, then it is refused without following, naming where it points', async () => {
    mastodon.script('verify_credentials', [{ status: 301, location: 'https://www.example.social/api/v1/accounts/verify_credentials' }]);
    const error = await failureOf(connector.verify(credentials), SocialRejectedError);
    expect(error.reason).toBe("Mastodon redirected the request (301) to https://www.example.social: use the instance's own address");
    expect(mastodon.requests).toHaveLength(1);
  });

  it.each([
    ['uses http', () => mastodon.url.replace('https:', 'http:'), 'Mastodon instance URL must use https'],
    ['is not a URL', () => 'mastodon.social', 'Mastodon instance URL is not a valid URL'],
  ])('when the instance URL %s, then it is refused before any request', async (_case, url, reason) => {
    const error = await failureOf(connector.publish({ ...credentials, instanceUrl: url() }, postWith()), SocialRejectedError);
    expect(error.reason).toBe(reason);
    expect(mastodon.requests).toHaveLength(0);
  });
});

describe('Mastodon connector: preview', () => {
  it('when a post is previewed, then it gives the status text and count that publishing sends, and the image as it is, asking nothing', async () => {
    const link = `https://example.com/${'a'.repeat(300)}`;
    const post = postWith({ text: `${link} ${'word '.repeat(120)}` });
    const preview = await connector.preview(post);
    expect(mastodon.requests).toHaveLength(0);
    // Mastodon counts the link as 23, whatever its length.
    expect(preview.text.startsWith(`${link} `)).toBe(true);
    expect(preview.count).toBe(23 + preview.text.length - link.length);
    expect(preview.count).toBeLessThanOrEqual(500);
    expect(preview.image).toEqual({ type: 'image/png', bytes: png.length, width: 64, height: 64 });

    await connector.publish(credentials, post);
    expect(mastodon.statuses[0]?.text).toBe(preview.text);
    expect(mastodon.statuses[0]?.text.endsWith('…')).toBe(true);
    expect(mastodon.media[0]?.bytes.length).toBe(preview.image?.bytes);
  });

  it('when the post has no image, then the preview has none', async () => {
    expect(await connector.preview({ text: 'Spring' })).toEqual({ text: 'Spring', count: 6, image: null });
  });
});
