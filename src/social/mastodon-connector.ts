import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import got from 'got';
import { addressPolicy, NonPublicAddressError, toPublicFetchError } from '../net/public-fetch.ts';
import {
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
} from './social-connector.ts';

// Mastodon's REST API (docs.joinmastodon.org): bearer token, media upload, then a status. One attempt per call:
// got's retries are off because Temporal's retry policy owns retrying; the status carries an Idempotency-Key, so a
// retried attempt gets the status the first one created instead of a second one.

export type MastodonConnectorOptions = {
  /** Development only: lets the instance URL point at loopback and private networks. */
  allowPrivateNetworks: boolean;
  /** For each request. */
  timeoutMs?: number;
};

const defaultTimeoutMs = 30_000;
// Mastodon counts grapheme clusters in a status, but code points in a media description.
const maxStatusGraphemes = 500;
const maxDescriptionCodePoints = 1_500;
const mediaPollIntervalMs = 1_000;
const mediaProcessingLimitMs = 60_000;
const defaultRateLimitWaitMs = 60_000;
// Retrying a 429 at once only earns another 429.
const minimumRateLimitWaitMs = 1_000;

type Answer = { status: number; headers: IncomingHttpHeaders; body: Record<string, unknown> };
type Image = NonNullable<SocialPost['image']>;
type Call = { method: 'GET' | 'POST'; path: string; json?: object; form?: Multipart; idempotencyKey?: string };
type Multipart = { body: Buffer; contentType: string };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Cuts `text` to at most `limit` units (as `measure` counts them), ending in "…" when it had to cut. */
function shorten(text: string, limit: number, measure: (text: string) => number): string {
  if (measure(text) <= limit) return text;
  const pieces = Array.from(graphemes.segment(text), ({ segment }) => segment);
  let kept = Math.min(pieces.length, limit);
  while (kept > 0 && measure(`${pieces.slice(0, kept).join('').trimEnd()}…`) > limit) kept -= 1;
  return `${pieces.slice(0, kept).join('').trimEnd()}…`;
}

const graphemeCount = (text: string) => Array.from(graphemes.segment(text)).length;
const codePointCount = (text: string) => Array.from(text).length;

function instanceOf(credentials: SocialCredentials): { origin: URL; token: string } {
  if (credentials.platform !== 'mastodon') throw new SocialRejectedError(`the Mastodon connector cannot use ${credentials.platform} credentials`);
  const { instanceUrl, accessToken } = credentials;
  if (!URL.canParse(instanceUrl)) throw new SocialRejectedError('Mastodon instance URL is not a valid URL');
  const url = new URL(instanceUrl);
  if (url.protocol !== 'https:') throw new SocialRejectedError('Mastodon instance URL must use https');
  // Mastodon serves its API from the root of its domain, whatever page of it the user copied.
  return { origin: new URL(url.origin), token: accessToken };
}

// Encoded up front: got streams a FormData body lazily, and a request refused before it reads the body (a private
// address) leaves that stream failing unhandled.
async function multipartOf({ bytes, contentType, alt }: Image): Promise<Multipart> {
  const form = new FormData();
  form.set('file', new Blob([bytes], { type: contentType }), contentType === 'image/png' ? 'image.png' : 'image.jpg');
  form.set('description', shorten(alt, maxDescriptionCodePoints, codePointCount));
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

function untilMs(date: string): number {
  return Date.parse(date) - Date.now();
}

/** Retry-After (seconds or an HTTP date), else Mastodon's X-RateLimit-Reset (an ISO time), else a minute. */
function retryAfterMs(headers: IncomingHttpHeaders): number {
  const retryAfter = headers['retry-after']?.trim();
  const reset = headers['x-ratelimit-reset'];
  let wait = Number.NaN;
  if (retryAfter) wait = /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : untilMs(retryAfter);
  if (!Number.isFinite(wait) && typeof reset === 'string') wait = untilMs(reset);
  return Number.isFinite(wait) ? Math.max(minimumRateLimitWaitMs, wait) : defaultRateLimitWaitMs;
}

/** Mastodon's own words from an error body, without the token should a server echo it. */
function errorTextOf(answer: Answer, token: string): string {
  const { error, error_description: description } = answer.body;
  const text = [error, description].filter((part) => typeof part === 'string' && part).join(': ');
  return token ? text.replaceAll(token, '[redacted]') : text;
}

function failureOf(answer: Answer, what: string, token: string): Error {
  const { status } = answer;
  const text = errorTextOf(answer, token);
  const detail = `(${status})${text ? `: ${text}` : ''}`;
  if (status === 401 || status === 403) return new SocialRejectedError(`Mastodon rejected the access token ${detail}`);
  if (status === 429) return new SocialRateLimitedError(`Mastodon rate limit reached ${detail}`, retryAfterMs(answer.headers));
  if (status === 408 || status >= 500) return new SocialUnavailableError(`Mastodon is unavailable ${detail}`);
  if (status >= 400) return new SocialRejectedError(`Mastodon refused ${what} ${detail}`);
  if (status >= 300) {
    // Redirects are not followed: an API client must not carry the bearer token to wherever a server points.
    const location = answer.headers.location;
    const target = location && URL.canParse(location) ? ` to ${new URL(location).origin}` : '';
    return new SocialRejectedError(`Mastodon redirected ${what} (${status})${target}: use the instance's own address`);
  }
  return new SocialUnavailableError(`Mastodon answered ${what} with an unexpected ${status}`);
}

function isRefusedAddress(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof NonPublicAddressError) return true;
  }
  return false;
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function textField(answer: Answer, field: string, what: string): string {
  const value = answer.body[field];
  // A reply without its fields after a write is not a refusal: retrying with the same key is safe.
  if (typeof value !== 'string' || !value) throw new SocialUnavailableError(`Mastodon answered ${what} (${answer.status}) without ${field}`);
  return value;
}

/** The connector for Mastodon (and servers speaking its API), on the public internet only unless allowed. */
export function createMastodonConnector(options: MastodonConnectorOptions): SocialConnector {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const policy = addressPolicy(options.allowPrivateNetworks);

  async function send(origin: URL, token: string, call: Call): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    if (call.form) headers['content-type'] = call.form.contentType;
    try {
      const response = await got(new URL(call.path, origin), {
        ...policy,
        method: call.method,
        headers,
        ...(call.json ? { json: call.json } : {}),
        ...(call.form ? { body: call.form.body } : {}),
        responseType: 'text',
        throwHttpErrors: false,
        followRedirect: false,
        retry: { limit: 0 },
        timeout: { request: timeoutMs },
      });
      return { status: response.statusCode, headers: response.headers, body: parseJson(response.body) };
    } catch (error) {
      // got's error carries the request options, Authorization header included: keep only the reason.
      const { reason } = toPublicFetchError(error, { what: 'Mastodon', timeoutMs });
      throw isRefusedAddress(error) ? new SocialRejectedError(reason) : new SocialUnavailableError(reason);
    }
  }

  async function waitUntilProcessed(origin: URL, token: string, mediaId: string, onProgress: (() => void) | undefined): Promise<void> {
    const deadline = Date.now() + mediaProcessingLimitMs;
    while (Date.now() < deadline) {
      await sleep(mediaPollIntervalMs);
      onProgress?.();
      const answer = await send(origin, token, { method: 'GET', path: `/api/v1/media/${encodeURIComponent(mediaId)}` });
      if (answer.status === 200) return;
      // 206 Partial Content: still processing.
      if (answer.status !== 206) throw failureOf(answer, 'the image', token);
    }
    throw new SocialUnavailableError(`Mastodon was still processing the image after ${mediaProcessingLimitMs / 1000} s`);
  }

  async function uploadImage(origin: URL, token: string, image: Image, onProgress: (() => void) | undefined): Promise<string> {
    const answer = await send(origin, token, { method: 'POST', path: '/api/v2/media', form: await multipartOf(image) });
    // 200: ready; 202: accepted, still processing (larger files).
    if (answer.status !== 200 && answer.status !== 202) throw failureOf(answer, 'the image', token);
    const mediaId = textField(answer, 'id', 'the image');
    if (answer.status === 202) await waitUntilProcessed(origin, token, mediaId, onProgress);
    return mediaId;
  }

  return {
    platform: 'mastodon',

    async verify(credentials) {
      const { origin, token } = instanceOf(credentials);
      const answer = await send(origin, token, { method: 'GET', path: '/api/v1/accounts/verify_credentials' });
      if (answer.status !== 200) throw failureOf(answer, 'the request', token);
      const acct = textField(answer, 'acct', 'the account');
      return { accountName: acct.includes('@') ? `@${acct}` : `@${acct}@${origin.host}`, accountId: textField(answer, 'id', 'the account') };
    },

    async publish(credentials, post) {
      const { origin, token } = instanceOf(credentials);
      const mediaIds = post.image ? [await uploadImage(origin, token, post.image, post.onProgress)] : [];
      const status = shorten(post.text, maxStatusGraphemes, graphemeCount);
      const answer = await send(origin, token, {
        method: 'POST',
        path: '/api/v1/statuses',
        json: { status, ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}), visibility: 'public' },
        idempotencyKey: post.idempotencyKey,
      });
      if (answer.status !== 200) throw failureOf(answer, 'the post', token);
      const url = answer.body.url;
      return { externalPostId: textField(answer, 'id', 'the post'), url: typeof url === 'string' && url ? url : undefined };
    },
  };
}
