import { answerFailure } from '../answer-failure.ts';
import { redactSecrets } from '../../../common/redaction/redact-secrets.ts';
import type { IncomingHttpHeaders } from 'node:http';
import {
  createPlatformHttp,
  encodeMultipart,
  httpsLinkOf,
  httpsOriginOf,
  imageFileName,
  streamedMultipart,
  videoFile,
  type Answer,
  type Multipart,
  type PlatformHttpOptions,
} from '../platform-http.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { imageDimensions } from '../image-dimensions.ts';
import { graphemeCount, shortenText } from '../shorten-text.ts';
import { callSessionStore } from '../call-session-store.ts';
import { mediaLedger, nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import {
  MediaStillProcessing,
  SocialRejectedError,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostDraft,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Mastodon's REST API (docs.joinmastodon.org): bearer token, media upload, then a status. One attempt per call, as
// Temporal's retry policy owns retrying; the status carries an Idempotency-Key, so a retried attempt gets the status
// the first one created instead of a second one. Media the server processes after the upload (a video, a large
// image: 202, https://docs.joinmastodon.org/methods/media/#v2) is noted in the connection's media ledger and the
// attempt stops (MediaStillProcessing); the next one checks it (GET /api/v1/media/:id: 206 while processing) and
// posts once it is ready.

/** `allowPrivateNetworks` lets the instance URL point at loopback and private networks. */
export type MastodonConnectorOptions = PlatformHttpOptions;

// Mastodon counts grapheme clusters in a status, every link as 23 of them, but code points in a media description.
const statusLimits = { graphemes: 500, linkGraphemes: 23 };
const maxDescriptionCodePoints = 1_500;
// How long a server may take to process media before the publication gives up on it.
const mediaProcessingLimitMs = 30 * 60_000;
// A default instance's configuration.media_attachments.video_size_limit (https://docs.joinmastodon.org/entities/Instance/).
const videoSizeLimit = 103_809_024;
// Mastodon keeps an Idempotency-Key for an hour; a retry 10 minutes short of it leaves room for the image upload and
// processing that come before the status is sent.
const idempotencyKeyCoverMs = 50 * 60_000;
// The post's address as the server gives it; one that is not an https URL of reasonable length is not kept.
const urlMaxChars = 2_048;

type Image = NonNullable<SocialPost['image']>;
type Call = { method: 'GET' | 'POST'; path: string; json?: object; form?: Multipart; idempotencyKey?: string; creates?: boolean };

/** The status text Mastodon is sent: the post's, cut to what Mastodon counts. */
function statusTextOf(post: SocialPostDraft): string {
  return shortenText(post.text, statusLimits);
}

function instanceOf(credentials: SocialCredentials): { origin: URL; token: string } {
  if (credentials.platform !== 'mastodon') throw new SocialRejectedError(`the Mastodon connector cannot use ${credentials.platform} credentials`);
  // Mastodon serves its API from the root of its domain, whatever page of it the user copied.
  return { origin: httpsOriginOf(credentials.instanceUrl, 'Mastodon instance URL'), token: credentials.accessToken };
}

/** The upload of the post's video or image (`form` made only when it is sent), or none. */
function uploadOf(post: SocialPost): { what: string; bytes: number; form(): Promise<Multipart> } | undefined {
  const { video, image } = post;
  if (video) {
    return {
      what: 'the video',
      bytes: video.bytes,
      form: () => Promise.resolve(streamedMultipart([['description', descriptionOf(video.alt)]], videoFile('file', video))),
    };
  }
  if (image) return { what: 'the image', bytes: image.bytes.length, form: () => imageForm(image) };
  return undefined;
}

function descriptionOf(alt: string): string {
  return shortenText(alt, { codePoints: maxDescriptionCodePoints });
}

function imageForm({ bytes, contentType, alt }: Image): Promise<Multipart> {
  const form = new FormData();
  form.set('file', new Blob([bytes], { type: contentType }), imageFileName(contentType));
  form.set('description', descriptionOf(alt));
  return encodeMultipart(form);
}

/** Media the server is still processing: the attempt stops for a while, or, past the limit, the publication fails. */
function stillProcessing(note: MediaNote, what: string): never {
  if (Date.now() - note.madeAt > mediaProcessingLimitMs) {
    throw new SocialRejectedError(`Mastodon was still processing ${what} ${mediaProcessingLimitMs / 60_000} minutes after it was uploaded`);
  }
  throw new MediaStillProcessing(`Mastodon is still processing ${what}.`, nextCheckAfterMs(note.madeAt));
}

function megabytesOf(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Mastodon's X-RateLimit-Reset is an ISO time. */
function resetAtOf(headers: IncomingHttpHeaders): number {
  const reset = headers['x-ratelimit-reset'];
  return typeof reset === 'string' ? Date.parse(reset) : Number.NaN;
}

/** Mastodon's own words from an error body, without the token should a server echo it. */
function errorTextOf(answer: Answer, token: string): string {
  const { error, error_description: description } = answer.body;
  const text = [error, description].filter((part) => typeof part === 'string' && part).join(': ');
  return redactSecrets(text, [token]);
}

// What connecting and posting call for (https://docs.joinmastodon.org/api/oauth-scopes/): verify_credentials takes
// `read:accounts` (or, from Mastodon 4.3, `profile`), media `write:media`, statuses `write:statuses`.
const neededScopes = 'read:accounts write:statuses write:media';

function failureOf(answer: Answer, what: string, token: string): Error {
  const { status } = answer;
  const text = errorTextOf(answer, token);
  const detail = `(${status})${text ? `: ${text}` : ''}`;
  return answerFailure(answer, {
    platform: platformNames.mastodon,
    what,
    detail,
    waitMs: () => rateLimitWaitMs(answer.headers, resetAtOf),
    redirectFix: "use the instance's own address",
    // Mastodon answers 403 to a token without the scope the call needs (among other refusals): say which it needs.
    refusal:
      status === 401
        ? `Mastodon rejected the access token ${detail}`
        : status === 403
          ? `Mastodon refused ${what} ${detail}; the access token needs the scopes ${neededScopes}`
          : undefined,
  });
}

/** The connector for Mastodon (and servers speaking its API), on the public internet only unless allowed. */
export function createMastodonConnector(options: MastodonConnectorOptions): SocialConnector {
  const http = createPlatformHttp(platformNames.mastodon, options);

  async function send(origin: URL, token: string, call: Call): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    if (call.form) headers['content-type'] = call.form.contentType;
    return http.request({ method: call.method, url: new URL(call.path, origin), headers, json: call.json, body: call.form?.body, creates: call.creates });
  }

  /**
   * The id of the post's media on the server, uploaded now or by an earlier attempt (its note in the ledger), once
   * the server has processed it; while it is processing, MediaStillProcessing stops the attempt.
   */
  async function processedMediaOf(origin: URL, token: string, post: SocialPost, ledger: MediaLedger): Promise<string | undefined> {
    const upload = uploadOf(post);
    if (!upload) return undefined;
    const noted = await ledger.find(post.idempotencyKey);
    if (noted) {
      const answer = await send(origin, token, { method: 'GET', path: `/api/v1/media/${encodeURIComponent(noted.id)}` });
      if (answer.status === 200) return noted.id;
      // 206 Partial Content: still processing.
      if (answer.status === 206) stillProcessing(noted, upload.what);
      // Gone (the server drops media no status took): uploaded again.
      if (answer.status !== 404) throw failureOf(answer, upload.what, token);
      await ledger.forget(post.idempotencyKey);
    }
    const answer = await send(origin, token, { method: 'POST', path: '/api/v2/media', form: await upload.form() });
    // 200: processed during the upload (small images); 202: accepted, processed afterwards (video, larger images).
    if (answer.status !== 200 && answer.status !== 202) throw failureOf(answer, upload.what, token);
    const id = http.textField(answer, 'id', upload.what);
    if (answer.status === 200) return id;
    const note = { id, madeAt: Date.now() };
    await ledger.note(post.idempotencyKey, note);
    throw new MediaStillProcessing(`Uploaded ${upload.what} (${megabytesOf(upload.bytes)}); Mastodon is processing it.`, nextCheckAfterMs(note.madeAt));
  }

  return {
    platform: 'mastodon',
    declaration: {
      platform: 'mastodon',
      auth: 'token',
      text: { max: statusLimits.graphemes, unit: 'graphemes', linkLength: statusLimits.linkGraphemes },
      // Mastodon's default image limit; an instance may set another (its /api/v2/instance says which).
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 16 * 1024 * 1024, maxCount: 4, altText: true },
      // The default instance's limit (an instance may set another); Mastodon documents no length or shape limits.
      video: { types: ['video/mp4'], maxBytes: videoSizeLimit },
      threads: true,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: true,
        how: 'The status carries an Idempotency-Key, which the server remembers for an hour.',
        withinMs: idempotencyKeyCoverMs,
      },
    },

    async verify(credentials) {
      const { origin, token } = instanceOf(credentials);
      const answer = await send(origin, token, { method: 'GET', path: '/api/v1/accounts/verify_credentials' });
      if (answer.status !== 200) throw failureOf(answer, 'the request', token);
      const acct = http.textField(answer, 'acct', 'the account');
      return { accountName: acct.includes('@') ? `@${acct}` : `@${acct}@${origin.host}`, accountId: http.textField(answer, 'id', 'the account') };
    },

    async preview(post) {
      const status = statusTextOf(post);
      // The image goes as it is: Mastodon converts and resizes what it takes itself.
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.mastodon)) }
        : null;
      return { text: status, count: graphemeCount(status, statusLimits.linkGraphemes), image };
    },

    // Mastodon documents no lookup of a status by its Idempotency-Key (nor a field of ours a search could find), so
    // there is nothing to look up: sending again with the same key gets the status the unanswered attempt created,
    // as long as the server still remembers the key (declared as `withinMs`: past it, the post is not sent again).
    findPublished() {
      return Promise.resolve(null);
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const { origin, token } = instanceOf(credentials);
      const ledger = mediaLedger(sessions);
      const mediaId = await processedMediaOf(origin, token, post, ledger);
      const mediaIds = mediaId === undefined ? [] : [mediaId];
      const status = statusTextOf(post);
      const answer = await send(origin, token, {
        method: 'POST',
        path: '/api/v1/statuses',
        json: {
          status,
          ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}),
          // A part of a thread replies to the part before it (Mastodon finds the thread's root from there).
          ...(post.replyTo ? { in_reply_to_id: post.replyTo.parent.externalPostId } : {}),
          visibility: 'public',
        },
        idempotencyKey: post.idempotencyKey,
        creates: true,
      });
      if (answer.status !== 200) throw failureOf(answer, 'the post', token);
      const published = { externalPostId: http.textField(answer, 'id', 'the post'), url: httpsLinkOf(answer.body.url, urlMaxChars) };
      if (mediaId !== undefined) await ledger.forgetAfterPost(post.idempotencyKey);
      return published;
    },
  };
}
