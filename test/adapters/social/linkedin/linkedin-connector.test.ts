import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LinkedInCredentials } from '../../../../src/adapters/social/social-connector.ts';
import { linkedInVersion } from '../../../../src/adapters/social/linkedin/linkedin-api.ts';
import { createLinkedInAuthors } from '../../../../src/adapters/social/linkedin/linkedin-author.ts';
import { escapeLittleText } from '../../../../src/adapters/social/linkedin/linkedin-commentary.ts';
import { createLinkedInConnector, type LinkedInConnector } from '../../../../src/adapters/social/linkedin/linkedin-connector.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialOutcomeUnknownError,
  SocialUnavailableError,
  type SessionStore,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startLinkedInServer, type LinkedInServer } from '../../../fakes/linkedin-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

const organization = 'urn:li:organization:2414183';
const memberScopes = ['openid', 'profile', 'w_member_social'];
const allScopes = [...memberScopes, 'w_organization_social', 'r_organization_social', 'r_organization_admin'];

let linkedin: LinkedInServer;
let connector: LinkedInConnector;
let png: Buffer;
let defaultUploadUrl: LinkedInServer['uploadUrlOf'];

function options() {
  return { apiUrl: linkedin.url, authorizeUrl: `${linkedin.url}/oauth/v2`, allowPrivateNetworks: true };
}

function credentialsFor(author: 'member' | 'organization', scopes = allScopes): LinkedInCredentials {
  const { accessToken, refreshToken } = linkedin.grantTokens(scopes);
  return {
    platform: 'linkedin',
    accessToken,
    refreshToken,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    author: author === 'member' ? `urn:li:person:${linkedin.member.sub}` : organization,
  };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: 'Spring collection is here',
    image: { bytes: png, contentType: 'image/png', alt: 'Three jackets on a rail' },
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

/** A connection's session store, in memory. */
function memoryStore(): SessionStore & { text: string | undefined } {
  const store = {
    key: randomUUID(),
    text: undefined as string | undefined,
    read: () => Promise.resolve(store.text),
    async renew(renewal: (stored: string | undefined) => Promise<string>) {
      store.text = await renewal(store.text);
      return store.text;
    },
  };
  return store;
}

beforeAll(async () => {
  linkedin = await startLinkedInServer();
  linkedin.organizations.set('2414183', 'Devtestco');
  connector = createLinkedInConnector(options());
  png = await makeImage('png');
  defaultUploadUrl = linkedin.uploadUrlOf;
});
beforeEach(() => {
  linkedin.requests.length = 0;
  linkedin.posts.length = 0;
  linkedin.images.length = 0;
  linkedin.videos.length = 0;
  linkedin.acls = [{ organization, role: 'ADMINISTRATOR', state: 'APPROVED' }];
  linkedin.silentAfterCreate = 0;
  linkedin.uploadUrlOf = defaultUploadUrl;
});
afterAll(() => linkedin?.close());

describe('LinkedIn connector: publish', () => {
  it('when the post has an image, then it uploads it for the member and posts it with its alt text, as the versioned API asks', async () => {
    const published = await connector.publish(credentialsFor('member'), postWith());

    expect(linkedin.images).toHaveLength(1);
    const [image] = linkedin.images;
    expect(image).toMatchObject({ owner: `urn:li:person:${linkedin.member.sub}`, contentType: 'image/png' });
    expect(image?.bytes?.equals(png)).toBe(true);
    expect(linkedin.posts).toHaveLength(1);
    const [post] = linkedin.posts;
    expect(post).toMatchObject({
      author: `urn:li:person:${linkedin.member.sub}`,
      commentary: 'Spring collection is here',
      visibility: 'PUBLIC',
      lifecycleState: 'PUBLISHED',
      media: { id: image?.urn, altText: 'Three jackets on a rail' },
    });
    expect(post?.headers['linkedin-version']).toBe(linkedInVersion);
    expect(post?.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(published).toEqual({ externalPostId: post?.id, url: `https://www.linkedin.com/feed/update/${post?.id}` });
  });

  it('when the post has no image, then it posts the text alone', async () => {
    await connector.publish(credentialsFor('member'), postWith({ image: undefined }));
    expect(linkedin.images).toHaveLength(0);
    expect(linkedin.posts).toMatchObject([{ commentary: 'Spring collection is here', media: undefined }]);
  });

  it("when the text has LinkedIn's reserved characters, then they are escaped, hashtags and links kept", async () => {
    const text = 'New (limited) run_2 @ 50% off <3 #spring https://shop.example.com/a_(b) ~*';
    await connector.publish(credentialsFor('member'), postWith({ text }));
    expect(linkedin.posts[0]?.commentary).toBe('New \\(limited\\) run\\_2 \\@ 50% off \\<3 #spring https://shop.example.com/a_(b) \\~\\*');
  });

  it('when the text is longer than 3,000 characters once escaped, then it is cut to fit, ending in an ellipsis', async () => {
    const text = '(a) '.repeat(1_000);
    const preview = await connector.preview({ text });
    await connector.publish(credentialsFor('member'), postWith({ text, image: undefined }));
    const commentary = linkedin.posts[0]?.commentary ?? '';
    expect(commentary.length).toBeLessThanOrEqual(3_000);
    expect(commentary.endsWith('…')).toBe(true);
    expect(commentary).toBe(escapeLittleText(preview.text));
    expect(preview.count).toBe(commentary.length);
  });

  it('when the token is wrong, then publishing is rejected for its credentials and nothing is uploaded or posted', async () => {
    const revoked: LinkedInCredentials = { ...credentialsFor('member'), accessToken: 'revoked-token-0123' };
    const error = await failureOf(connector.publish(revoked, postWith()), SocialRejectedError);
    expect(error.reason).toBe('LinkedIn rejected the access token (401 INVALID_ACCESS_TOKEN): Invalid access token');
    expect(error.about).toBe('credentials');
    expect(linkedin.images).toHaveLength(0);
    expect(linkedin.posts).toHaveLength(0);
  });

  it('when LinkedIn rate-limits the day (429), then it asks to retry after midnight UTC', async () => {
    linkedin.script('createPost', [{ status: 429 }]);
    const before = Date.now();
    const error = await failureOf(connector.publish(credentialsFor('member'), postWith()), SocialRateLimitedError);
    expect(error.message).toBe(
      'LinkedIn rate limit reached (429 TOO_MANY_REQUESTS): Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
    );
    const today = new Date(before);
    const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1);
    expect(error.retryAfterMs).toBeLessThanOrEqual(Math.max(midnight - before, 1_000));
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(Math.max(midnight - Date.now(), 1_000));
    expect(linkedin.posts).toHaveLength(0);
  });

  it('when LinkedIn rate-limits for a moment (429 with Retry-After), then it asks to retry after that long', async () => {
    linkedin.script('initializeUpload', [{ status: 429, retryAfter: '30', message: 'Too many requests' }]);
    const error = await failureOf(connector.publish(credentialsFor('member'), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(30_000);
  });

  it.each(['initializeUpload', 'upload', 'createPost'] as const)('when LinkedIn answers 503 to %s, then it reports LinkedIn unavailable', async (endpoint) => {
    linkedin.script(endpoint, [{ status: 503 }]);
    const error = await failureOf(connector.publish(credentialsFor('member'), postWith()), SocialUnavailableError);
    expect(error.message).toBe('LinkedIn is unavailable (503 SERVICE_UNAVAILABLE): Service Unavailable');
    expect(linkedin.posts).toHaveLength(0);
  });

  it.each([
    ['another host', 'https://uploads.example.net/dms-uploads/1'],
    ['a host merely ending in linkedin.com', 'https://evil-linkedin.com/dms-uploads/1'],
    ['plain http', 'http://www.linkedin.com/dms-uploads/1'],
  ])('when LinkedIn gives an upload URL on %s, then the token is not sent there and nothing is posted', async (_case, url) => {
    linkedin.uploadUrlOf = () => url;
    const error = await failureOf(connector.publish(credentialsFor('member'), postWith()), SocialRejectedError);
    expect(error.reason).toBe('LinkedIn answered an upload with an upload URL off LinkedIn');
    expect(linkedin.posts).toHaveLength(0);
  });
});

describe('LinkedIn connector: preview', () => {
  it('when the image is within the limits, then the preview is the text, its count and the image as they would be sent', async () => {
    expect(await connector.preview({ text: 'Hello (world)', image: { bytes: png, contentType: 'image/png', alt: 'x' } })).toEqual({
      text: 'Hello (world)',
      count: 'Hello \\(world\\)'.length,
      image: { type: 'image/png', bytes: png.length, width: 64, height: 64 },
    });
  });

  it('when the image is larger than 5 MB, then the preview shows it re-encoded as a JPEG within the limit, as it would be uploaded', async () => {
    // Noise: no PNG encoding makes it smaller, so only a JPEG can fit.
    const noisy = await sharp(randomBytes(1500 * 1500 * 3), { raw: { width: 1500, height: 1500, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noisy.length).toBeGreaterThan(5 * 1024 * 1024);
    const preview = await connector.preview({ text: 'big', image: { bytes: noisy, contentType: 'image/png', alt: 'noise' } });
    expect(preview.image).toMatchObject({ type: 'image/jpeg', width: 1500, height: 1500 });
    expect(preview.image?.bytes).toBeLessThanOrEqual(5 * 1024 * 1024);
  });
});

describe('LinkedIn connector: organisation authors', () => {
  it("when the member administers the organisation, then the connection may post as it, and its posts and images are the organisation's", async () => {
    const credentials = credentialsFor('organization');
    const authors = createLinkedInAuthors(options());
    const member = await authors.member(credentials.accessToken, 'openid');
    expect(await authors.authorFor({ accessToken: credentials.accessToken, member, requested: organization })).toEqual({
      accountName: 'Devtestco',
      accountId: organization,
      author: organization,
    });
    expect(await connector.verify(credentials)).toEqual({ accountName: 'Devtestco', accountId: organization });

    await connector.publish(credentials, postWith());
    expect(linkedin.images[0]?.owner).toBe(organization);
    expect(linkedin.posts).toMatchObject([{ author: organization, media: { id: linkedin.images[0]?.urn } }]);
  });

  it('when the connection was made through the organisation app (Community Management alone, no OpenID), then the member is read from their profile and it posts as the organisation', async () => {
    const { accessToken, refreshToken } = linkedin.grantTokens([...linkedin.organizationAppScopes], linkedin.organizationClient.clientId);
    const credentials = { ...credentialsFor('organization'), accessToken, refreshToken, app: 'authors' as const };
    expect(await connector.verify(credentials)).toEqual({ accountName: 'Devtestco', accountId: organization });
    expect(linkedin.requests.map((request) => request.path)).not.toContain('/v2/userinfo');

    await connector.publish(credentials, postWith());
    expect(linkedin.posts).toMatchObject([{ author: organization, media: { id: linkedin.images[0]?.urn } }]);
  });

  it.each([
    ['holds no role in it', []],
    ['is only an analyst of it', [{ organization, role: 'ANALYST', state: 'APPROVED' as const }]],
    ['has only requested the role', [{ organization, role: 'ADMINISTRATOR', state: 'REQUESTED' as const }]],
    ['only posts its sponsored content (ads)', [{ organization, role: 'DIRECT_SPONSORED_CONTENT_POSTER', state: 'APPROVED' as const }]],
  ])('when the member %s, then the organisation is refused as the author', async (_case, acls) => {
    linkedin.acls = acls;
    const credentials = credentialsFor('organization');
    const authors = createLinkedInAuthors(options());
    const member = await authors.member(credentials.accessToken, 'openid');
    const error = await failureOf(authors.authorFor({ accessToken: credentials.accessToken, member, requested: organization }), SocialRejectedError);
    expect(error.reason).toBe(`Alice Example is not an administrator or content administrator of ${organization} on LinkedIn`);
    await failureOf(connector.verify(credentials), SocialRejectedError);
  });

  it('when the organisation author was allowed and the role is gone since, then LinkedIn refuses the post and nothing is posted', async () => {
    linkedin.acls = [];
    const error = await failureOf(connector.publish(credentialsFor('organization'), postWith({ image: undefined })), SocialRejectedError);
    expect(error.reason).toMatch(/^LinkedIn did not allow the post \(403 ACCESS_DENIED\)/);
    expect(linkedin.posts).toHaveLength(0);
  });

  it('when the requested author is neither the member nor an organisation, then it is refused before asking LinkedIn', async () => {
    const credentials = credentialsFor('organization');
    const authors = createLinkedInAuthors(options());
    const member = await authors.member(credentials.accessToken, 'openid');
    linkedin.requests.length = 0;
    const error = await failureOf(
      authors.authorFor({ accessToken: credentials.accessToken, member, requested: 'urn:li:person:someone-else' }),
      SocialRejectedError,
    );
    expect(error.reason).toContain('not urn:li:person:someone-else');
    expect(linkedin.requests).toHaveLength(0);
  });
});

describe('LinkedIn connector: findPublished', () => {
  it('when the post was created and its answer never came, then findPublished finds that post, and there is one post', async () => {
    linkedin.silentAfterCreate = 1;
    const impatient = createLinkedInConnector({ ...options(), timeoutMs: 500 });
    const credentials = credentialsFor('organization');
    const sessions = memoryStore();
    const post = postWith();

    const error = await failureOf(impatient.publish(credentials, post, sessions), SocialOutcomeUnknownError);
    expect(error.message).toBe('LinkedIn server did not answer within 0.5 s after the request was sent');
    expect(linkedin.posts).toHaveLength(1);

    const found = await connector.findPublished(credentials, post.idempotencyKey, sessions);
    expect(found).toEqual({ externalPostId: linkedin.posts[0]?.id, url: `https://www.linkedin.com/feed/update/${linkedin.posts[0]?.id}` });
    expect(linkedin.posts).toHaveLength(1);
    const listing = linkedin.requests.find((request) => request.method === 'GET' && request.path === '/rest/posts');
    expect(Object.fromEntries(listing?.query ?? [])).toEqual({ author: organization, q: 'author', count: '50', sortBy: 'CREATED' });
  });

  it('when a post of the same text but without the image exists, then it is not taken for the lost one', async () => {
    const credentials = credentialsFor('organization');
    const sessions = memoryStore();
    await connector.publish(credentials, postWith({ image: undefined }), sessions);
    linkedin.script('createPost', [{ status: 500 }]);
    const lost = postWith();
    await failureOf(connector.publish(credentials, lost, sessions), SocialUnavailableError);

    // Same text, but the earlier post has no image and this one was never created.
    expect(await connector.findPublished(credentials, lost.idempotencyKey, sessions)).toBeNull();
  });

  it('when no post of the publication was ever sent, then findPublished answers that it was not, without asking LinkedIn', async () => {
    const credentials = credentialsFor('organization');
    linkedin.script('initializeUpload', [{ status: 503 }]);
    const sessions = memoryStore();
    const post = postWith();
    await failureOf(connector.publish(credentials, post, sessions), SocialUnavailableError);
    linkedin.requests.length = 0;
    expect(await connector.findPublished(credentials, post.idempotencyKey, sessions)).toBe(notSent);
    expect(linkedin.requests).toHaveLength(0);
  });

  it('when the notes are of the version that kept the last 50, then they are whole from the oldest once there are 50, from the start before', async () => {
    const credentials = credentialsFor('organization');
    const sessions = memoryStore();
    const note = (at: number) => ({ key: randomUUID(), digest: 'd', image: false, at });
    sessions.text = JSON.stringify({ linkedInSent: [note(Date.now() - 60_000)] });
    expect(await connector.findPublished(credentials, randomUUID(), sessions)).toBe(notSent);
    sessions.text = JSON.stringify({ linkedInSent: Array.from({ length: 50 }, () => note(Date.now() - 60_000)) });
    expect(await connector.findPublished(credentials, randomUUID(), sessions)).toBeNull();
  });

  it('when the notes of the last day were cut (a connection past a thousand posts a day), then a publication without a note is unknown, not unsent', async () => {
    const credentials = credentialsFor('organization');
    const sessions = memoryStore();
    sessions.text = JSON.stringify({ linkedInSent: [], linkedInSentWholeSince: Date.now() - 60_000 });
    expect(await connector.findPublished(credentials, randomUUID(), sessions)).toBeNull();
    sessions.text = JSON.stringify({ linkedInSent: [], linkedInSentWholeSince: Date.now() - 25 * 3_600_000 });
    expect(await connector.findPublished(credentials, randomUUID(), sessions)).toBe(notSent);
  });

  it("when the author is a member and the app may not list members' posts, then findPublished refuses rather than guess", async () => {
    linkedin.silentAfterCreate = 1;
    const impatient = createLinkedInConnector({ ...options(), timeoutMs: 500 });
    const credentials = credentialsFor('member', memberScopes);
    const sessions = memoryStore();
    const post = postWith();
    await failureOf(impatient.publish(credentials, post, sessions), SocialUnavailableError);

    const error = await failureOf(connector.findPublished(credentials, post.idempotencyKey, sessions), SocialRejectedError);
    expect(error.reason).toMatch(/^LinkedIn did not allow listing the author's posts \(403 ACCESS_DENIED\)/);
  });
});

describe('LinkedIn connector: video', () => {
  // Three seconds of noise, losslessly: over LinkedIn's 75 KB and 3 s minimums, in several of the small parts below.
  let clip: Buffer;
  beforeAll(() => {
    clip = makeVideo({ width: 108, height: 192, seconds: 3, noise: true });
    linkedin.videoPartBytes = 128 * 1024;
  });
  afterAll(() => {
    linkedin.videoPartBytes = 4 * 1024 * 1024;
  });
  const videoPost = (overrides: Partial<SocialPost> = {}) =>
    postWith({ video: socialVideoOf(clip, { width: 108, height: 192, durationMs: 3_000 }), ...overrides });
  const partsSent = () => linkedin.requests.filter((request) => request.path.startsWith('/dms-uploads/video/'));
  const partCount = () => Math.ceil(clip.length / (128 * 1024));

  it('when a post has a video, then it goes up in the parts LinkedIn sets, LinkedIn processes it between attempts, and the post carries it', async () => {
    linkedin.videoProcessingChecks = 1;
    const credentials = credentialsFor('organization');
    const sessions = memoryStore();
    const post = videoPost();

    const uploading = await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    expect(uploading.detail).toBe(`Uploaded the video (${partCount()} parts); LinkedIn is processing it.`);
    expect(uploading.checkAfterMs).toBe(2_000);
    const processing = await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    expect(processing.detail).toBe('LinkedIn is still processing the video.');
    const published = await connector.publish(credentials, post, sessions);

    const [video] = linkedin.videos;
    expect(linkedin.videos).toHaveLength(1);
    expect(video!.owner).toBe(organization);
    expect(video!.bytes!.equals(clip)).toBe(true);
    expect(partsSent()).toHaveLength(partCount());
    // Pre-signed URLs: the bearer token never goes with the bytes.
    expect(partsSent().every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(linkedin.images).toHaveLength(0);
    expect(linkedin.posts).toHaveLength(1);
    expect(linkedin.posts[0]).toMatchObject({ id: published.externalPostId, author: organization, media: { id: video!.urn } });
    // The upload's note went with the post; the post's own note stays for a lookup.
    const session = JSON.parse(sessions.text!) as { media: object; linkedInSent: Array<{ key: string; image: boolean }> };
    expect(session.media).toEqual({});
    expect(session.linkedInSent).toContainEqual(expect.objectContaining({ key: post.idempotencyKey, image: true }));
  });

  it('when an attempt stops after the first part, then the next sends the rest to the same upload, and one video is posted', async () => {
    linkedin.videoProcessingChecks = 0;
    linkedin.script('uploadVideoPart', [{}, { status: 503 }]);
    const credentials = credentialsFor('member');
    const sessions = memoryStore();
    const post = videoPost();

    await failureOf(connector.publish(credentials, post, sessions), SocialUnavailableError);
    // Stopped before the post: a retry may send it.
    expect(await connector.findPublished(credentials, post.idempotencyKey, sessions)).toBe(notSent);
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await connector.publish(credentials, post, sessions);

    expect(linkedin.requests.filter((request) => request.path === '/rest/videos' && request.query.get('action') === 'initializeUpload')).toHaveLength(1);
    // The first part once, the second refused then sent again, the rest once each.
    expect(partsSent()).toHaveLength(partCount() + 1);
    expect(linkedin.videos[0]!.bytes!.equals(clip)).toBe(true);
    expect(linkedin.posts).toHaveLength(1);
  });

  it("when finalizing's answer was lost, then the next attempt finds the video processing and goes on, without a second upload", async () => {
    linkedin.videoProcessingChecks = 0;
    linkedin.script('finalizeVideoUpload', [{ status: 502 }]);
    const credentials = credentialsFor('member');
    const sessions = memoryStore();
    const post = videoPost();
    // LinkedIn finalized the upload; the answer that said so did not come back.
    await failureOf(connector.publish(credentials, post, sessions), SocialUnavailableError);
    const [video] = linkedin.videos;
    video!.status = 'PROCESSING';
    video!.bytes = clip;

    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await connector.publish(credentials, post, sessions);
    expect(linkedin.videos).toHaveLength(1);
    expect(partsSent()).toHaveLength(partCount());
    expect(linkedin.posts).toHaveLength(1);
  });

  it('when LinkedIn refuses to finish an upload still waiting for its parts, then the note goes and the next attempt uploads the video anew: one post', async () => {
    linkedin.videoProcessingChecks = 0;
    linkedin.script('finalizeVideoUpload', [{ status: 400, message: 'uploadedPartIds do not match the uploaded parts' }]);
    const credentials = credentialsFor('member');
    const sessions = memoryStore();
    const post = videoPost();
    const error = await failureOf(connector.publish(credentials, post, sessions), SocialUnavailableError);
    expect(error.message).toBe('LinkedIn did not finish the upload of the video (400); the next attempt uploads it again');

    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await connector.publish(credentials, post, sessions);
    expect(linkedin.videos).toHaveLength(2);
    expect(linkedin.posts).toHaveLength(1);
    expect(linkedin.posts[0]!.media?.id).toBe(linkedin.videos[1]!.urn);
  });

  it.each([
    ['longer', 1_000],
    ['shorter', -1_000],
  ])('when the stored video is %s than its job recorded, then the upload stops before finishing, and nothing is posted', async (_case, difference) => {
    const post = videoPost({ video: socialVideoOf(clip, { bytes: clip.length - difference }) });
    const error = await failureOf(connector.publish(credentialsFor('member'), post, memoryStore()));
    expect(error.message).toBe(`The stored video is not the ${clip.length - difference} bytes its job recorded`);
    expect(linkedin.requests.some((request) => request.query.get('action') === 'finalizeUpload')).toBe(false);
    expect(linkedin.posts).toHaveLength(0);
  });

  it('when LinkedIn fails the video at processing (two seconds long), then the publication is refused for good in its words, and nothing is posted', async () => {
    linkedin.videoProcessingChecks = 0;
    const short = makeVideo({ width: 108, height: 192, seconds: 2, noise: true });
    const post = postWith({ video: socialVideoOf(short, { width: 108, height: 192, durationMs: 2_000 }) });
    const sessions = memoryStore();
    await failureOf(connector.publish(credentialsFor('member'), post, sessions), MediaStillProcessing);
    const error = await failureOf(connector.publish(credentialsFor('member'), post, sessions), SocialRejectedError);
    expect(error.reason).toBe('LinkedIn could not process the video: The video lasts 2 s, not between 3 seconds and 30 minutes');
    expect(linkedin.posts).toHaveLength(0);
  });

  it('when the video is larger than LinkedIn takes, then LinkedIn refuses the upload in its words, and nothing is sent', async () => {
    const post = videoPost({ video: socialVideoOf(clip, { bytes: 600 * 1024 * 1024 }) });
    const error = await failureOf(connector.publish(credentialsFor('member'), post, memoryStore()), SocialRejectedError);
    expect(error.reason).toBe(
      `LinkedIn refused the video (400 BAD_REQUEST): fileSizeBytes ${600 * 1024 * 1024} is larger than the ${500 * 1024 * 1024} bytes allowed`,
    );
    expect(partsSent()).toHaveLength(0);
    expect(linkedin.posts).toHaveLength(0);
  });
});
