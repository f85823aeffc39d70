import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MediaStillProcessing,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialOutcomeUnknownError,
  SocialUnavailableError,
  type SessionStore,
  type SocialPost,
  notSent,
} from '../../../../src/adapters/social/social-connector.ts';
import { createThreadsConnector, type ThreadsConnector } from '../../../../src/adapters/social/threads/threads-connector.ts';
import type { ThreadsCredentials } from '../../../../src/adapters/social/social-connector.ts';
import { startHttpsServer, type HttpsServer } from '../../../fakes/https-server.ts';
import { startThreadsServer, type ThreadsServer } from '../../../fakes/threads-server.ts';
import { foundPost } from '../../../support/found-post.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let threads: ThreadsServer;
let connector: ThreadsConnector;
let credentials: ThreadsCredentials;
let png: Buffer;
let clip: Buffer;
let strip: Buffer;
// Stands in for our api's signed file links: an HTTPS server on loopback that Threads (the fake) fetches from.
let files: HttpsServer;
const fileRequests: string[] = [];

/** A connection's session store, kept in memory across calls as the database keeps it across attempts. */
function memorySessions(): SessionStore & { text: string | undefined } {
  const store: SessionStore & { text: string | undefined } = {
    key: randomUUID(),
    text: undefined,
    read: () => Promise.resolve(store.text),
    async renew(renewal) {
      store.text = await renewal(store.text);
      return store.text;
    },
  };
  return store;
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    text: 'Spring collection is here',
    image: { bytes: png, contentType: 'image/png', alt: 'Three jackets on a rail' },
    imageUrl: () => Promise.resolve(`${files.url}/files/posts/spring.png?expires=9999999999&signature=abc`),
    idempotencyKey: randomUUID(),
    ...overrides,
  };
}

const textPost = (overrides: Partial<SocialPost> = {}) => postWith({ image: undefined, imageUrl: undefined, ...overrides });
const paths = () => threads.requests.map(({ method, path }) => `${method} ${path}`);

beforeAll(async () => {
  threads = await startThreadsServer();
  connector = createThreadsConnector({ apiUrl: threads.url, allowPrivateNetworks: true });
  png = await makeImage('png');
  clip = makeVideo();
  strip = makeVideo({ width: 1100, height: 100 });
  files = await startHttpsServer((request, response) => {
    fileRequests.push(request.url ?? '');
    const video = request.url === '/files/posts/clip.mp4' ? clip : request.url === '/files/posts/strip.mp4' ? strip : undefined;
    if (video) {
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(video.length) }).end(video);
      return;
    }
    if (!request.url?.startsWith('/files/posts/spring.png?')) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png);
  });
});
beforeEach(() => {
  credentials = {
    platform: 'threads',
    accessToken: threads.issueToken('long'),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    userId: threads.account.id,
  };
  threads.requests.length = 0;
  threads.containers.length = 0;
  threads.threads.length = 0;
  threads.processingPolls = 0;
  threads.timeOutAfterPublishing = 0;
  fileRequests.length = 0;
});
afterAll(async () => {
  await threads?.close();
  await files?.close();
});

describe('Threads connector: verify', () => {
  it('when the token is valid, then it names the account @username with its Threads user id', async () => {
    expect(await connector.verify(credentials)).toEqual({ accountName: '@alice', accountId: threads.account.id });
  });

  it('when the token is not one Threads knows, then it is rejected (190) without the token in the reason', async () => {
    const error = await failureOf(connector.verify({ ...credentials, accessToken: 'THLrevoked0123456789' }), SocialRejectedError);
    expect(error.reason).toBe('Threads rejected the access token (400, code 190): Invalid OAuth access token - Cannot parse access token');
  });
});

describe('Threads connector: publish', () => {
  it('when the post is text only, then it makes a TEXT container, waits until it is FINISHED and publishes it', async () => {
    const published = await connector.publish(credentials, textPost());

    expect(paths()).toEqual([
      `POST /v1.0/${threads.account.id}/threads`,
      `GET /v1.0/${threads.containers[0]?.id}`,
      `POST /v1.0/${threads.account.id}/threads_publish`,
      `GET /v1.0/${threads.threads[0]?.id}`,
    ]);
    expect(threads.containers).toMatchObject([{ mediaType: 'TEXT', text: 'Spring collection is here', imageUrl: undefined, status: 'PUBLISHED' }]);
    expect(threads.threads).toHaveLength(1);
    expect(published).toEqual({ externalPostId: threads.threads[0]?.id, url: threads.threads[0]?.permalink });
  });

  it('when the post has an image, then Threads fetches it from our signed URL and posts it with its alt text', async () => {
    const published = await connector.publish(credentials, postWith());

    expect(fileRequests).toEqual(['/files/posts/spring.png?expires=9999999999&signature=abc']);
    const [container] = threads.containers;
    expect(container).toMatchObject({ mediaType: 'IMAGE', text: 'Spring collection is here', altText: 'Three jackets on a rail' });
    expect(container?.image?.bytes.equals(png)).toBe(true);
    expect(threads.threads).toMatchObject([{ id: published.externalPostId, mediaType: 'IMAGE', containerId: container?.id }]);
  });

  it('when Threads cannot fetch the image, then the container ends in ERROR and the post is refused with the reason', async () => {
    const post = postWith({ imageUrl: () => Promise.resolve(`${files.url}/files/posts/missing.png`) });
    const error = await failureOf(connector.publish(credentials, post), SocialRejectedError);

    expect(error.reason).toBe(
      'Threads could not process the post (UNKNOWN); Threads fetches the image from our PUBLIC_URL, which must be reachable from the internet',
    );
    expect(threads.containers).toMatchObject([{ status: 'ERROR' }]);
    expect(threads.threads).toHaveLength(0);
  });

  it('when the container is IN_PROGRESS for a while, then each attempt stops until it is FINISHED, the same container checked, and the last publishes it', async () => {
    threads.processingPolls = 2;
    const sessions = memorySessions();
    const post = postWith();
    const waiting = await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    expect(waiting).toMatchObject({ detail: 'Threads is processing the post.', checkAfterMs: 2_000 });
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    await connector.publish(credentials, post, sessions);

    expect(threads.containers).toHaveLength(1);
    const polls = paths().filter((path) => path === `GET /v1.0/${threads.containers[0]?.id}`);
    expect(polls).toHaveLength(3);
    expect(threads.threads).toHaveLength(1);
  });

  it('when a post has a video, then its container is a VIDEO Threads fetches from our link, processed between attempts, then published', async () => {
    const sessions = memorySessions();
    const video = socialVideoOf(clip, { alt: 'Boats leaving', url: () => Promise.resolve(`${files.url}/files/posts/clip.mp4`) });
    const post = postWith({ image: undefined, imageUrl: undefined, video });
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    const published = await connector.publish(credentials, post, sessions);
    expect(threads.containers).toMatchObject([{ mediaType: 'VIDEO', altText: 'Boats leaving', status: 'PUBLISHED' }]);
    expect(threads.containers[0]!.video!.equals(clip)).toBe(true);
    expect(threads.threads).toMatchObject([{ id: published.externalPostId }]);
  });

  it('when Threads cannot take the video (11:1), then the post is refused for good with its error message', async () => {
    const video = socialVideoOf(strip, { width: 1100, height: 100, url: () => Promise.resolve(`${files.url}/files/posts/strip.mp4`) });
    const error = await failureOf(connector.publish(credentials, postWith({ image: undefined, imageUrl: undefined, video })), SocialRejectedError);
    expect(error.reason).toBe(
      'Threads could not process the post (INVALID_ASPEC_RATIO); Threads fetches the video from our PUBLIC_URL, which must be reachable from the internet',
    );
    expect(threads.threads).toHaveLength(0);
  });

  it('when the post has an image but no URL Threads could fetch it from, then it is refused before Threads is asked anything', async () => {
    const error = await failureOf(connector.publish(credentials, postWith({ imageUrl: undefined })), SocialRejectedError);
    expect(error.reason).toBe('Threads fetches the image from a public URL of ours, and none was given');
    expect(threads.requests).toHaveLength(0);
  });

  it('when the image is larger than 8 MB, then it is refused before Threads is asked anything', async () => {
    const large = Buffer.concat([png, Buffer.alloc(8_000_000)]);
    const error = await failureOf(
      connector.publish(credentials, postWith({ image: { bytes: large, contentType: 'image/png', alt: '' } })),
      SocialRejectedError,
    );
    expect(error.reason).toBe("the image is larger than Threads' 8000000 bytes");
    expect(threads.requests).toHaveLength(0);
  });

  it('when the post carries six different links, then it is refused before Threads is asked; one link six times is one link', async () => {
    const links = [1, 2, 3, 4, 5, 6].map((n) => `https://harbour.example/${n}`);
    const error = await failureOf(connector.publish(credentials, textPost({ text: `See ${links.join(', ')}.` })), SocialRejectedError);
    expect(error.reason).toBe('Threads takes at most 5 different links in a post; this one has 6');
    expect(threads.requests).toHaveLength(0);

    // The same link six times, its host in any case, is one link; a path differing in case would be another.
    await connector.publish(credentials, textPost({ text: `See ${links[0]} HTTPS://HARBOUR.example/1 `.repeat(3) }));
    expect(threads.containers).toHaveLength(1);
  });

  it('when a container with six different links reaches Threads anyway, then Threads refuses it at creation (THREADS_API__LINK_LIMIT_EXCEEDED)', async () => {
    const text = [1, 2, 3, 4, 5, 6].map((n) => `https://harbour.example/${n}`).join(' ');
    const url = new URL(`/v1.0/${threads.account.id}/threads`, threads.url);
    const answer = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ media_type: 'TEXT', text, access_token: credentials.accessToken }),
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(await answer.json())).toContain('THREADS_API__LINK_LIMIT_EXCEEDED');
    expect(threads.containers).toHaveLength(0);
  });

  it('when the text is over 500 as Threads counts it (an emoji counts its UTF-8 bytes), then it is cut to fit, as the preview said', async () => {
    const text = `${'word '.repeat(90)}🌸🌸🌸 ${'more '.repeat(20)}`;
    const post = textPost({ text });
    const preview = await connector.preview(post);
    await connector.publish(credentials, post);

    expect(threads.containers[0]?.text).toBe(preview.text);
    expect(preview.text.endsWith('…')).toBe(true);
    expect(preview.count).toBeLessThanOrEqual(500);
    expect(preview).toMatchObject({ image: null });
  });

  it('when previewing a post with an image, then it describes the image as Threads will fetch it', async () => {
    expect(await connector.preview(postWith())).toEqual({
      text: 'Spring collection is here',
      count: 25,
      image: { type: 'image/png', bytes: png.length, width: 64, height: 64 },
    });
  });

  it.each([
    ['code 4 (the app is throttled)', { status: 400, code: 4 }, 60_000],
    ['code 613 (the call is throttled)', { status: 400, code: 613, message: 'Calls to this api have exceeded the rate limit.' }, 60_000],
    ['429 with Retry-After', { status: 429, retryAfter: '30' }, 30_000],
  ])('when Threads throttles the publish with %s, then it is a rate limit with that wait', async (_case, scripted, waitMs) => {
    threads.script('publish', [scripted]);
    const error = await failureOf(connector.publish(credentials, textPost()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(waitMs);
    expect(error.message).toMatch(/^Threads rate limit reached \((400|429), code (4|613)\)/);
  });

  it('when the token was revoked, then publishing is rejected as credentials and nothing is made', async () => {
    threads.expire(credentials.accessToken);
    const error = await failureOf(connector.publish(credentials, textPost()), SocialRejectedError);
    expect(error.about).toBe('credentials');
    expect(error.reason).toMatch(/^Threads rejected the access token \(400, code 190\/463\)/);
    expect(threads.containers).toHaveLength(0);
  });

  it.each([
    ['503', { status: 503 }],
    ['code 1 (an unknown error)', { status: 500, code: 1 }],
    ['code 2 (the service)', { status: 400, code: 2, message: 'Service temporarily unavailable' }],
  ])('when Threads answers %s, then it reports Threads unavailable', async (_case, scripted) => {
    threads.script('create', [scripted]);
    const error = await failureOf(connector.publish(credentials, textPost()));
    expect(error).toBeInstanceOf(SocialUnavailableError);
    expect(error.message).toMatch(/^Threads is unavailable/);
  });

  it('when Threads refuses the post for its content, then it is refused with Threads words', async () => {
    threads.script('create', [{ status: 400, code: 100, message: 'Param text contains too many links' }]);
    const error = await failureOf(connector.publish(credentials, textPost()), SocialRejectedError);
    expect(error.reason).toBe('Threads refused the post (400, code 100): Param text contains too many links');
  });
});

describe('Threads connector: retries never post twice', () => {
  it('when the publish timed out after Threads published, then findPublished finds the thread and a retry posts nothing more', async () => {
    const impatient = createThreadsConnector({ apiUrl: threads.url, allowPrivateNetworks: true, timeoutMs: 500 });
    const sessions = memorySessions();
    const post = textPost();
    threads.timeOutAfterPublishing = 1;

    const error = await failureOf(impatient.publish(credentials, post, sessions));
    expect(error).toBeInstanceOf(SocialOutcomeUnknownError);
    expect(error.message).toBe('Threads server did not answer within 0.5 s after the request was sent');
    expect(threads.threads).toHaveLength(1);

    const found = await connector.findPublished(credentials, post.idempotencyKey, sessions);
    expect(found).toEqual({ externalPostId: threads.threads[0]?.id, url: threads.threads[0]?.permalink });

    const retried = await connector.publish(credentials, post, sessions);
    expect(retried).toEqual(found);
    expect(threads.threads).toHaveLength(1);
    expect(threads.containers).toHaveLength(1);
  });

  it('when the publish failed before Threads published, then findPublished says so and the retry publishes the same container', async () => {
    const sessions = memorySessions();
    const post = postWith();
    threads.script('publish', [{ status: 503 }]);
    await failureOf(connector.publish(credentials, post, sessions), SocialUnavailableError);

    expect(await connector.findPublished(credentials, post.idempotencyKey, sessions)).toBeNull();
    const published = await connector.publish(credentials, post, sessions);
    expect(threads.containers).toHaveLength(1);
    expect(fileRequests).toHaveLength(1);
    expect(threads.threads).toMatchObject([{ id: published.externalPostId, containerId: threads.containers[0]?.id }]);
  });

  it('when the container is still IN_PROGRESS half an hour after it was made, then the post fails for good and nothing is published', async () => {
    const sessions = memorySessions();
    const post = postWith();
    threads.processingPolls = 1_000;
    await failureOf(connector.publish(credentials, post, sessions), MediaStillProcessing);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31 * 60_000 });
    try {
      const error = await failureOf(connector.publish(credentials, post, sessions), SocialRejectedError);
      expect(error.reason).toBe('Threads was still processing the post 30 minutes after it was sent');
    } finally {
      vi.useRealTimers();
    }
    expect(threads.containers).toHaveLength(1);
    expect(threads.threads).toHaveLength(0);
  });

  it('when one publication is published twice, then there is one thread, and another publication makes another', async () => {
    const sessions = memorySessions();
    const post = textPost();
    const first = await connector.publish(credentials, post, sessions);
    expect(await connector.publish(credentials, post, sessions)).toEqual(first);
    expect(threads.threads).toHaveLength(1);

    await connector.publish(credentials, textPost(), sessions);
    expect(threads.threads).toHaveLength(2);
  });

  it('when no attempt with the key made a container, then findPublished says nothing was sent; without a session store it answers null', async () => {
    await connector.publish(credentials, textPost(), memorySessions());
    expect(await connector.findPublished(credentials, randomUUID(), memorySessions())).toBe(notSent);
    expect(await connector.findPublished(credentials, randomUUID())).toBeNull();
  });
});

describe('Threads connector: replies in a thread', () => {
  it('when a part replies to the one before, then its container names it as reply_to_id', async () => {
    const root = await connector.publish(credentials, textPost({ text: 'Part one' }));
    const second = await connector.publish(credentials, textPost({ text: 'Part two', replyTo: { root, parent: root } }));
    const third = await connector.publish(credentials, postWith({ text: 'Part three', replyTo: { root, parent: second } }));
    const thread = (id: string) => threads.threads.find((candidate) => candidate.id === id);
    expect(thread(root.externalPostId)?.replyToId).toBeUndefined();
    expect(thread(second.externalPostId)?.replyToId).toBe(root.externalPostId);
    expect(thread(third.externalPostId)?.replyToId).toBe(second.externalPostId);
  });

  it('when the thread replied to is not on Threads, then Threads refuses the reply, for good, in its own words', async () => {
    const missing = { externalPostId: '17800000000000000' };
    const error = await failureOf(connector.publish(credentials, textPost({ replyTo: { root: missing, parent: missing } })), SocialRejectedError);
    expect(error.reason).toContain("Object with ID '17800000000000000' does not exist");
    expect(threads.threads).toHaveLength(0);
  });

  it('when the answer to a reply never comes after Threads published it, then it is found among the account’s replies and not posted again', async () => {
    const impatient = createThreadsConnector({ apiUrl: threads.url, allowPrivateNetworks: true, timeoutMs: 500 });
    const root = await connector.publish(credentials, textPost({ text: 'Thread start' }));
    const sessions = memorySessions();
    const reply = textPost({ text: 'Thread reply', replyTo: { root, parent: root } });
    threads.timeOutAfterPublishing = 1;
    await failureOf(impatient.publish(credentials, reply, sessions), SocialOutcomeUnknownError);

    const found = foundPost(await connector.findPublished(credentials, reply.idempotencyKey, sessions));
    const published = threads.threads.find((thread) => thread.text === 'Thread reply');
    expect(found.externalPostId).toBe(published?.id);
    expect(await connector.publish(credentials, reply, sessions)).toEqual(found);
    expect(threads.threads.filter((thread) => thread.text === 'Thread reply')).toHaveLength(1);
  });

  it('when the token lacks threads_read_replies, then the look-up of a reply whose answer was lost is refused naming the permission, and nothing is posted again', async () => {
    const withoutReplies = { ...credentials, accessToken: threads.issueToken('long', 0, ['threads_basic', 'threads_content_publish']) };
    const impatient = createThreadsConnector({ apiUrl: threads.url, allowPrivateNetworks: true, timeoutMs: 500 });
    const root = await connector.publish(withoutReplies, textPost({ text: 'Permissions start' }));
    const sessions = memorySessions();
    const reply = textPost({ text: 'Permissions reply', replyTo: { root, parent: root } });
    threads.timeOutAfterPublishing = 1;
    await failureOf(impatient.publish(withoutReplies, reply, sessions), SocialOutcomeUnknownError);

    const error = await failureOf(connector.findPublished(withoutReplies, reply.idempotencyKey, sessions), SocialRejectedError);
    expect(error.reason).toBe('Threads refused the permission (403, code 10): (#10) Application does not have permission for this action');
    expect(threads.threads.filter((thread) => thread.text === 'Permissions reply')).toHaveLength(1);
  });
});
