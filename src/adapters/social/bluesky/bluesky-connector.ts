import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import sharp from 'sharp';
import { imageDimensions } from '../image-dimensions.ts';
import { callSessionStore } from '../call-session-store.ts';
import { createPlatformHttp, httpsOriginOf, type Answer, type PlatformHttpOptions, type RequestBody } from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { facetsOf } from './bluesky-facets.ts';
import { isUsable, sessionOf, sessionText, type BlueskySession } from './bluesky-session.ts';
import { graphemeCount, shortenText } from '../shorten-text.ts';
import {
  SocialRejectedError,
  SocialUnavailableError,
  type PublishedSocialPost,
  type SessionStore,
  type SocialConnector,
  type SocialCredentials,
  type SocialPostDraft,
  type SocialVideo,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Bluesky over XRPC (docs.bsky.app): a session, the image as a blob, then an app.bsky.feed.post record with its
// rich-text facets. One attempt per call, as Temporal's retry policy owns retrying. Bluesky has no idempotency key,
// so the record key is derived from ours: an attempt first looks for the record an earlier attempt may have
// created, and a second record under that key cannot exist.
//
// The session is kept in the connection's SessionStore and reused until its access token is about to expire (or is
// refused as expired), then refreshed with com.atproto.server.refreshSession; a new one is created from the app
// password only when there is none or the refresh token is refused. One renewal at a time per connection: within a
// process the callers share it, across processes the store's lease orders them, and whoever comes second finds the
// renewed session stored and uses it.

/** `allowPrivateNetworks` lets the service URL point at loopback and private networks. */
export type BlueskyConnectorOptions = PlatformHttpOptions;

const postCollection = 'app.bsky.feed.post';
// app.bsky.feed.post limits its text to 300 graphemes and 3000 bytes; the images embed its blobs to 2,000,000 bytes.
const textLimits = { graphemes: 300, bytes: 3_000 };
const maxImageBytes = 2_000_000;
const jpegQualities = [90, 80, 70, 60, 50, 40];

type Call = {
  method: 'GET' | 'POST';
  nsid: string;
  token?: string;
  query?: Record<string, string>;
  json?: object;
  bytes?: { body: RequestBody; contentType: string };
  /** Makes the post (see PlatformRequest.creates). */
  creates?: boolean;
};
type Image = NonNullable<SocialPostDraft['image']>;
type UploadableImage = { bytes: Buffer; contentType: string; width: number; height: number };
type Published = { externalPostId: string; url: string; replyRef: string };

const tidAlphabet = '234567abcdefghijklmnopqrstuvwxyz';
// A TID is 53 bits of microseconds since 1970 and 10 bits of clock id. Ours must be the same on every attempt, so
// its bits come from the idempotency key, placed in the 13 months from 2023-01-01: the time it claims is then in
// the past, as a TID's should be, and never in the future, where atproto services distrust TIDs.
const tidWindowStartMicros = BigInt(Date.UTC(2023, 0, 1)) * 1000n;

/** The record key for a publication: a valid TID derived from its idempotency key. */
function recordKeyOf(idempotencyKey: string): string {
  // 45 bits of offset into the window (about 407 days in microseconds) and 10 bits of clock id.
  const bits = createHash('sha256').update(idempotencyKey).digest().readBigUInt64BE(0) >> 9n;
  let value = (tidWindowStartMicros << 10n) + bits;
  let key = '';
  for (let index = 0; index < 13; index += 1) {
    key = `${tidAlphabet[Number(value & 31n)]}${key}`;
    value >>= 5n;
  }
  return key;
}

function serviceOf(credentials: SocialCredentials): { origin: URL; handle: string; appPassword: string } {
  if (credentials.platform !== 'bluesky') throw new SocialRejectedError(`the Bluesky connector cannot use ${credentials.platform} credentials`);
  const origin = httpsOriginOf(credentials.serviceUrl, 'Bluesky service URL');
  // Handles are often copied as mentions.
  return { origin, handle: credentials.handle.trim().replace(/^@/, ''), appPassword: credentials.appPassword };
}

/** Bluesky's ratelimit-reset is in epoch seconds. */
function resetAtOf(headers: IncomingHttpHeaders): number {
  const reset = headers['ratelimit-reset'];
  return typeof reset === 'string' && /^\d+$/.test(reset.trim()) ? Number(reset) * 1000 : Number.NaN;
}

// The reference PDS answers 400 ExpiredToken for an access token past its `exp`, 400 InvalidToken for one it cannot
// verify (a revoked session), 401 when it wants one; any of these means: renew the session and try once more.
function isSessionRefused(answer: Answer): boolean {
  const { error } = answer.body;
  return (answer.status === 400 && (error === 'ExpiredToken' || error === 'InvalidToken')) || answer.status === 401;
}

/** "(401 AuthenticationRequired): Invalid identifier or password", with secrets blanked should a server echo them. */
function detailOf(answer: Answer, secrets: string[]): string {
  const { error, message } = answer.body;
  const name = typeof error === 'string' && error ? ` ${error}` : '';
  const text = redactSecrets(typeof message === 'string' ? message : '', secrets);
  return `(${answer.status}${name})${text ? `: ${text}` : ''}`;
}

function failureOf(answer: Answer, refused: string, secrets: string[]): Error {
  const detail = detailOf(answer, secrets);
  return answerFailure(answer, {
    platform: platformNames.bluesky,
    what: 'the request',
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, resetAtOf),
    redirectFix: "use the service's own address",
    refusal: `${refused} ${detail}`,
  });
}

// Lexicons name the error RecordNotFound; PDS versions before that answer InvalidRequest "Could not locate record".
function isRecordNotFound(answer: Answer): boolean {
  const { error, message } = answer.body;
  if (answer.status !== 400) return false;
  return error === 'RecordNotFound' || (error === 'InvalidRequest' && typeof message === 'string' && message.startsWith('Could not locate record'));
}

/**
 * The image as it is sent to Bluesky: re-encoded as JPEG, at lower and lower quality, when it is too large. One
 * still too large at the lowest quality comes back as that JPEG (publishing refuses it; a preview reports it).
 */
async function uploadableImage(image: Image): Promise<UploadableImage> {
  const { width, height } = await imageDimensions(image.bytes, platformNames.bluesky);
  if (image.bytes.length <= maxImageBytes) return { bytes: image.bytes, contentType: image.contentType, width, height };
  let jpeg = image.bytes;
  for (const quality of jpegQualities) {
    // JPEG has no transparency: flatten onto white, as a viewer would show it.
    jpeg = await sharp(image.bytes).flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
    if (jpeg.length <= maxImageBytes) break;
  }
  return { bytes: jpeg, contentType: 'image/jpeg', width, height };
}

/** A post as a reply names it (com.atproto.repo.strongRef): its record's URI and CID. */
function strongRefOf(post: PublishedSocialPost): { uri: string; cid: string } {
  if (!post.replyRef) throw new SocialRejectedError('a Bluesky reply needs the CID of the post it replies to');
  return { uri: post.externalPostId, cid: post.replyRef };
}

/** The record text Bluesky is sent: the post's, cut to its graphemes and bytes. */
function recordTextOf(post: SocialPostDraft): string {
  return shortenText(post.text, textLimits);
}

/** The connector for Bluesky (and other atproto PDSes), on the public internet only unless allowed. */
export function createBlueskyConnector(options: BlueskyConnectorOptions): SocialConnector {
  const http = createPlatformHttp(platformNames.bluesky, options);
  // Renewals under way in this process, by SessionStore key.
  const renewals = new Map<string, Promise<BlueskySession>>();

  async function send(origin: URL, call: Call): Promise<Answer> {
    const url = new URL(`/xrpc/${call.nsid}`, origin);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.bytes) headers['content-type'] = call.bytes.contentType;
    return http.request({ method: call.method, url, headers, json: call.json, body: call.bytes?.body, creates: call.creates });
  }

  function sessionFrom(answer: Answer): BlueskySession {
    return {
      accessJwt: http.textField(answer, 'accessJwt', 'the session'),
      refreshJwt: http.textField(answer, 'refreshJwt', 'the session'),
      did: http.textField(answer, 'did', 'the session'),
      handle: http.textField(answer, 'handle', 'the session'),
    };
  }

  async function createSession(credentials: SocialCredentials): Promise<BlueskySession> {
    const { origin, handle, appPassword } = serviceOf(credentials);
    const answer = await send(origin, {
      method: 'POST',
      nsid: 'com.atproto.server.createSession',
      json: { identifier: handle, password: appPassword },
    });
    if (answer.status !== 200) throw failureOf(answer, 'Bluesky rejected the handle or app password', [appPassword]);
    return sessionFrom(answer);
  }

  /** The refreshed session, or undefined when the refresh token is refused (expired, revoked, or rotated away). */
  async function refreshSession(origin: URL, stored: BlueskySession): Promise<BlueskySession | undefined> {
    if (!isUsable(stored.refreshJwt, Date.now())) return undefined;
    const answer = await send(origin, { method: 'POST', nsid: 'com.atproto.server.refreshSession', token: stored.refreshJwt });
    if (answer.status === 200) return sessionFrom(answer);
    if (answer.status === 400 || answer.status === 401) return undefined;
    throw failureOf(answer, 'Bluesky refused to refresh the session', [stored.refreshJwt]);
  }

  /** A new session in place of `stale` (undefined: none was stored), once per connection at a time. */
  function renewSession(credentials: SocialCredentials, sessions: SessionStore, stale: BlueskySession | undefined): Promise<BlueskySession> {
    const running = renewals.get(sessions.key);
    if (running) return running;
    const renewal = sessions
      .renew(async (storedText) => {
        const stored = sessionOf(storedText);
        // Renewed by another process while this one waited for the session lease.
        if (stored && stored.accessJwt !== stale?.accessJwt) return sessionText(stored);
        const refreshed = stored ? await refreshSession(serviceOf(credentials).origin, stored) : undefined;
        return sessionText(refreshed ?? (await createSession(credentials)));
      })
      .then((text) => sessionOf(text) ?? Promise.reject(new Error('the renewed Bluesky session could not be read back')))
      .finally(() => renewals.delete(sessions.key));
    renewals.set(sessions.key, renewal);
    return renewal;
  }

  /** The session to publish with: the stored one while its access token is good, else a renewed one. */
  async function sessionFor(credentials: SocialCredentials, sessions: SessionStore): Promise<BlueskySession> {
    const stored = sessionOf(await sessions.read());
    if (stored && isUsable(stored.accessJwt, Date.now())) return stored;
    return renewSession(credentials, sessions, stored);
  }

  // Our own https link: the handle is the server's word, so it stays one segment of the path whatever it holds.
  // The record's CID is what a reply names besides its URI (a strong reference).
  function publishedOf(session: BlueskySession, answer: Answer, rkey: string, what: string): Published {
    return {
      externalPostId: http.textField(answer, 'uri', what),
      url: `https://bsky.app/profile/${encodeURIComponent(session.handle)}/post/${encodeURIComponent(rkey)}`,
      replyRef: http.textField(answer, 'cid', what),
    };
  }

  /** The DID of a mentioned handle; undefined when Bluesky does not know it, so the mention stays text. */
  async function resolveHandle(origin: URL, handle: string): Promise<string | undefined> {
    const answer = await send(origin, { method: 'GET', nsid: 'com.atproto.identity.resolveHandle', query: { handle } });
    if (answer.status === 200) return http.textField(answer, 'did', 'the handle');
    if (answer.status === 400) return undefined;
    throw failureOf(answer, 'Bluesky refused to resolve a mention', []);
  }

  /** The post an earlier attempt created under this key, if any (records are public: no token needed). */
  async function findPost(origin: URL, session: BlueskySession, rkey: string, secrets: string[]): Promise<Published | undefined> {
    const answer = await send(origin, {
      method: 'GET',
      nsid: 'com.atproto.repo.getRecord',
      query: { repo: session.did, collection: postCollection, rkey },
    });
    if (answer.status === 200) return publishedOf(session, answer, rkey, 'the existing post');
    if (isRecordNotFound(answer)) return undefined;
    throw failureOf(answer, 'Bluesky refused to look up the post', secrets);
  }

  async function uploadBlob(authorized: (call: (token: string) => Call) => Promise<Answer>, image: Image, secrets: () => string[]) {
    const uploadable = await uploadableImage(image);
    if (uploadable.bytes.length > maxImageBytes) {
      throw new SocialRejectedError(`the image is larger than Bluesky's ${maxImageBytes} bytes even as a JPEG at quality ${jpegQualities.at(-1)}`);
    }
    const answer = await authorized((token) => ({
      method: 'POST',
      nsid: 'com.atproto.repo.uploadBlob',
      token,
      bytes: { body: uploadable.bytes, contentType: uploadable.contentType },
    }));
    if (answer.status !== 200) throw failureOf(answer, 'Bluesky refused the image', secrets());
    const blob = answer.body.blob;
    if (typeof blob !== 'object' || blob === null) throw new SocialUnavailableError(`Bluesky answered the image (${answer.status}) without blob`);
    const { width, height } = uploadable;
    return { image: blob, alt: image.alt, aspectRatio: { width, height } };
  }

  /**
   * The post's video as an `app.bsky.embed.video`: uploaded to the account's PDS (com.atproto.repo.uploadBlob, the
   * file streamed as it is, https://docs.bsky.app/docs/tutorials/video), its shape given so clients lay the post out
   * before it loads. Bluesky processes the video once the post is made, so there is nothing to wait for here.
   */
  async function uploadVideo(authorized: (call: (token: string) => Call) => Promise<Answer>, video: SocialVideo, secrets: () => string[]) {
    const answer = await authorized((token) => ({
      method: 'POST',
      nsid: 'com.atproto.repo.uploadBlob',
      token,
      bytes: { body: video, contentType: video.type },
    }));
    if (answer.status !== 200) throw failureOf(answer, 'Bluesky refused the video', secrets());
    const blob = answer.body.blob;
    if (typeof blob !== 'object' || blob === null) throw new SocialUnavailableError(`Bluesky answered the video (${answer.status}) without blob`);
    return { $type: 'app.bsky.embed.video', video: blob, ...(video.alt ? { alt: video.alt } : {}), aspectRatio: { width: video.width, height: video.height } };
  }

  return {
    platform: 'bluesky',
    declaration: {
      platform: 'bluesky',
      auth: 'app-password',
      text: { max: textLimits.graphemes, unit: 'graphemes' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxImageBytes, maxCount: 4, altText: true },
      // A deployed PDS takes blobs up to 100 MB (PDS_BLOB_UPLOAD_LIMIT in https://github.com/bluesky-social/pds; a
      // self-hosted one may set less); the official app takes videos up to 10 minutes (VIDEO_MAX_DURATION_MS in
      // bluesky-social/social-app). No shape limits are documented.
      video: { types: ['video/mp4'], maxBytes: 100 * 1024 * 1024, maxDurationMs: 10 * 60_000 },
      threads: true,
      destination: null,
      retriesNeverDuplicate: { guaranteed: true, how: 'The record key is derived from the publication, so a second record under it cannot exist.' },
    },

    async verify(credentials) {
      const session = await createSession(credentials);
      return { accountName: session.handle, accountId: session.did, session: sessionText(session) };
    },

    async preview(post) {
      const text = recordTextOf(post);
      const image = post.image ? await uploadableImage(post.image) : undefined;
      return {
        text,
        count: graphemeCount(text),
        image: image ? { type: image.contentType, bytes: image.bytes.length, width: image.width, height: image.height } : null,
      };
    },

    // The record key is derived from the idempotency key: the record an earlier attempt made is found by that key.
    async findPublished(credentials, idempotencyKey, sessions = callSessionStore()) {
      const { origin, appPassword } = serviceOf(credentials);
      const session = await sessionFor(credentials, sessions);
      return (await findPost(origin, session, recordKeyOf(idempotencyKey), [appPassword, session.accessJwt, session.refreshJwt])) ?? null;
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const { origin, appPassword } = serviceOf(credentials);
      let session = await sessionFor(credentials, sessions);
      const secrets = () => [appPassword, session.accessJwt, session.refreshJwt];
      /** Sends an authenticated call; a session refused as expired is renewed and the call sent once more. */
      async function authorized(call: (token: string) => Call): Promise<Answer> {
        const answer = await send(origin, call(session.accessJwt));
        if (!isSessionRefused(answer)) return answer;
        session = await renewSession(credentials, sessions, session);
        return send(origin, call(session.accessJwt));
      }

      const rkey = recordKeyOf(post.idempotencyKey);
      const earlier = await findPost(origin, session, rkey, secrets());
      if (earlier) return earlier;

      const text = recordTextOf(post);
      const facets = await facetsOf(text, (handle) => resolveHandle(origin, handle));
      const image = post.image && !post.video ? await uploadBlob(authorized, post.image, secrets) : undefined;
      const video = post.video ? await uploadVideo(authorized, post.video, secrets) : undefined;
      const record = {
        $type: postCollection,
        text,
        ...(facets.length > 0 ? { facets } : {}),
        ...(post.language ? { langs: [post.language] } : {}),
        ...(post.replyTo ? { reply: { root: strongRefOf(post.replyTo.root), parent: strongRefOf(post.replyTo.parent) } } : {}),
        createdAt: new Date().toISOString(),
        ...(image ? { embed: { $type: 'app.bsky.embed.images', images: [image] } } : {}),
        ...(video ? { embed: video } : {}),
      };
      const answer = await authorized((token) => ({
        method: 'POST',
        nsid: 'com.atproto.repo.createRecord',
        token,
        json: { repo: session.did, collection: postCollection, rkey, record },
        creates: true,
      }));
      if (answer.status === 200) return publishedOf(session, answer, rkey, 'the post');
      // A conflict on our key means an attempt we did not hear back from created the post after all.
      if (answer.status !== 401 && answer.status !== 429) {
        const created = await findPost(origin, session, rkey, secrets());
        if (created) return created;
      }
      throw failureOf(answer, 'Bluesky refused the post', secrets());
    },
  };
}
