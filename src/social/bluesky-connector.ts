import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import sharp from 'sharp';
import { createPlatformHttp, httpsOriginOf, redactSecrets, type Answer, type PlatformHttpOptions } from './platform-http.ts';
import { rateLimitWaitMs } from './rate-limit-wait.ts';
import { shortenText } from './shorten-text.ts';
import {
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
} from './social-connector.ts';

// Bluesky over XRPC (docs.bsky.app): a session from the handle and app password, the image as a blob, then an
// app.bsky.feed.post record. One attempt per call, as Temporal's retry policy owns retrying. Bluesky has no
// idempotency key, so the record key is derived from ours: an attempt first looks for the record an earlier attempt
// may have created, and a second record under that key cannot exist.

/** `allowPrivateNetworks` lets the service URL point at loopback and private networks. */
export type BlueskyConnectorOptions = PlatformHttpOptions;

const postCollection = 'app.bsky.feed.post';
// app.bsky.feed.post limits its text to 300 graphemes and 3000 bytes; the images embed its blobs to 2,000,000 bytes.
const textLimits = { graphemes: 300, bytes: 3_000 };
const maxImageBytes = 2_000_000;
const jpegQualities = [90, 80, 70, 60, 50, 40];

type Call = { method: 'GET' | 'POST'; nsid: string; token?: string; query?: Record<string, string>; json?: object; bytes?: { body: Buffer; contentType: string } };
type Session = { accessJwt: string; did: string; handle: string };
type Image = NonNullable<SocialPost['image']>;
type Published = { externalPostId: string; url: string };

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

/** "(401 AuthenticationRequired): Invalid identifier or password", with secrets blanked should a server echo them. */
function detailOf(answer: Answer, secrets: string[]): string {
  const { error, message } = answer.body;
  const name = typeof error === 'string' && error ? ` ${error}` : '';
  const text = redactSecrets(typeof message === 'string' ? message : '', secrets);
  return `(${answer.status}${name})${text ? `: ${text}` : ''}`;
}

function failureOf(answer: Answer, refused: string, secrets: string[]): Error {
  const { status } = answer;
  const detail = detailOf(answer, secrets);
  if (status === 429) return new SocialRateLimitedError(`Bluesky rate limit reached ${detail}`, rateLimitWaitMs(answer.headers, resetAtOf));
  if (status === 408 || status >= 500) return new SocialUnavailableError(`Bluesky is unavailable ${detail}`);
  if (status >= 400) return new SocialRejectedError(`${refused} ${detail}`);
  // Redirects are not followed: the session token must not go wherever a server points.
  if (status >= 300) return new SocialRejectedError(`Bluesky redirected the request (${status}): use the service's own address`, 'server');
  return new SocialUnavailableError(`Bluesky answered with an unexpected ${status}`);
}

// Lexicons name the error RecordNotFound; PDS versions before that answer InvalidRequest "Could not locate record".
function isRecordNotFound(answer: Answer): boolean {
  const { error, message } = answer.body;
  if (answer.status !== 400) return false;
  return error === 'RecordNotFound' || (error === 'InvalidRequest' && typeof message === 'string' && message.startsWith('Could not locate record'));
}

/** The image as Bluesky accepts it: re-encoded as JPEG, at lower and lower quality, when it is too large. */
async function uploadableImage(image: Image): Promise<{ bytes: Buffer; contentType: string; width?: number; height?: number }> {
  let metadata;
  try {
    metadata = await sharp(image.bytes).metadata();
  } catch {
    throw new SocialRejectedError('the image to post to Bluesky could not be read');
  }
  const { width, height } = metadata;
  if (image.bytes.length <= maxImageBytes) return { bytes: image.bytes, contentType: image.contentType, width, height };
  for (const quality of jpegQualities) {
    // JPEG has no transparency: flatten onto white, as a viewer would show it.
    const jpeg = await sharp(image.bytes).flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
    if (jpeg.length <= maxImageBytes) return { bytes: jpeg, contentType: 'image/jpeg', width, height };
  }
  throw new SocialRejectedError(`the image is larger than Bluesky's ${maxImageBytes} bytes even as a JPEG at quality ${jpegQualities.at(-1)}`);
}

/** The connector for Bluesky (and other atproto PDSes), on the public internet only unless allowed. */
export function createBlueskyConnector(options: BlueskyConnectorOptions): SocialConnector {
  const http = createPlatformHttp('Bluesky', options);

  async function send(origin: URL, call: Call): Promise<Answer> {
    const url = new URL(`/xrpc/${call.nsid}`, origin);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.bytes) headers['content-type'] = call.bytes.contentType;
    return http.request({ method: call.method, url, headers, json: call.json, body: call.bytes?.body });
  }

  async function createSession(credentials: SocialCredentials): Promise<{ origin: URL; session: Session; secrets: string[] }> {
    const { origin, handle, appPassword } = serviceOf(credentials);
    const answer = await send(origin, {
      method: 'POST',
      nsid: 'com.atproto.server.createSession',
      json: { identifier: handle, password: appPassword },
    });
    if (answer.status !== 200) throw failureOf(answer, 'Bluesky rejected the handle or app password', [appPassword]);
    const session = {
      accessJwt: http.textField(answer, 'accessJwt', 'the session'),
      did: http.textField(answer, 'did', 'the session'),
      handle: http.textField(answer, 'handle', 'the session'),
    };
    return { origin, session, secrets: [appPassword, session.accessJwt] };
  }

  function publishedOf(session: Session, uri: string, rkey: string): Published {
    return { externalPostId: uri, url: `https://bsky.app/profile/${session.handle}/post/${rkey}` };
  }

  /** The post an earlier attempt created under this key, if any. */
  async function findPost(origin: URL, session: Session, rkey: string, secrets: string[]): Promise<Published | undefined> {
    const answer = await send(origin, {
      method: 'GET',
      nsid: 'com.atproto.repo.getRecord',
      token: session.accessJwt,
      query: { repo: session.did, collection: postCollection, rkey },
    });
    if (answer.status === 200) return publishedOf(session, http.textField(answer, 'uri', 'the existing post'), rkey);
    if (isRecordNotFound(answer)) return undefined;
    throw failureOf(answer, 'Bluesky refused to look up the post', secrets);
  }

  async function uploadBlob(origin: URL, session: Session, image: Image, secrets: string[]) {
    const uploadable = await uploadableImage(image);
    const answer = await send(origin, {
      method: 'POST',
      nsid: 'com.atproto.repo.uploadBlob',
      token: session.accessJwt,
      bytes: { body: uploadable.bytes, contentType: uploadable.contentType },
    });
    if (answer.status !== 200) throw failureOf(answer, 'Bluesky refused the image', secrets);
    const blob = answer.body.blob;
    if (typeof blob !== 'object' || blob === null) throw new SocialUnavailableError(`Bluesky answered the image (${answer.status}) without blob`);
    const { width, height } = uploadable;
    return { image: blob, alt: image.alt, ...(width && height ? { aspectRatio: { width, height } } : {}) };
  }

  return {
    platform: 'bluesky',

    async verify(credentials) {
      const { session } = await createSession(credentials);
      return { accountName: session.handle, accountId: session.did };
    },

    async publish(credentials, post) {
      const { origin, session, secrets } = await createSession(credentials);
      const rkey = recordKeyOf(post.idempotencyKey);
      const earlier = await findPost(origin, session, rkey, secrets);
      if (earlier) return earlier;

      const image = post.image ? await uploadBlob(origin, session, post.image, secrets) : undefined;
      const record = {
        $type: postCollection,
        text: shortenText(post.text, textLimits),
        createdAt: new Date().toISOString(),
        ...(image ? { embed: { $type: 'app.bsky.embed.images', images: [image] } } : {}),
      };
      const answer = await send(origin, {
        method: 'POST',
        nsid: 'com.atproto.repo.createRecord',
        token: session.accessJwt,
        json: { repo: session.did, collection: postCollection, rkey, record },
      });
      if (answer.status === 200) return publishedOf(session, http.textField(answer, 'uri', 'the post'), rkey);
      // A conflict on our key means an attempt we did not hear back from created the post after all.
      if (answer.status !== 401 && answer.status !== 429) {
        const created = await findPost(origin, session, rkey, secrets);
        if (created) return created;
      }
      throw failureOf(answer, 'Bluesky refused the post', secrets);
    },
  };
}
