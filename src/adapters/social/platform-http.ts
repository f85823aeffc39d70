import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import got, { RequestError } from 'got';
import { addressPolicy, DisallowedPortError, NonPublicAddressError } from '../net/public-address-policy.ts';
import { toPublicFetchError } from '../net/public-fetch.ts';
import { withResponseSizeLimit } from '../net/response-size-limit.ts';
import { isStorableText } from '../../common/validation/storable-text.ts';
import { SocialOutcomeUnknownError, SocialRejectedError, SocialUnavailableError, type SocialVideo } from './social-connector.ts';
import { causesOf } from '../../common/errors/caught.ts';

// Room for a session token (a JWT of a few hundred characters) many times over.
const fieldMaxChars = 8_192;

// How a connector talks to its platform's server: one attempt per request, as Temporal's retry policy owns
// retrying; redirects answered rather than followed, so no token goes wherever a server points; and only servers
// on the public internet, unless development allows otherwise. Answers are JSON of a few KB; one larger than 1 MB
// is cut off and counts as the platform being unavailable.

/**
 * A body too large to hold (a video): its length, and `open` for a new stream of it, opened only once the request
 * is under way and destroyed when it ends, so a request refused before it reads the body leaves nothing open.
 */
type StreamedBody = { bytes: number; open: () => Readable };

/** What a request sends: bytes in hand, or a stream of them. */
export type RequestBody = Buffer | StreamedBody;

/**
 * A multipart body: encoded up front (got streams a FormData body lazily, and a request refused before it reads the
 * body, a private address, leaves that stream failing unhandled), or streamed around a file (streamedMultipart).
 */
export type Multipart = { body: RequestBody; contentType: string };

/** A streamed multipart's file. */
type StreamedFile = { field: string; fileName: string; contentType: string; body: StreamedBody };

/** The post's video as a form's file `field`, streamed from storage. */
export function videoFile(field: string, video: SocialVideo): StreamedFile {
  return { field, fileName: 'video.mp4', contentType: video.type, body: video };
}

/** One file, streamed, and its form fields: the file goes last, under `file.field`. */
export function streamedMultipart(fields: Array<[string, string]>, file: StreamedFile): Multipart {
  // A random boundary: no text of a post can contain it, so its fields need no escaping.
  const boundary = `content-service-${randomUUID()}`;
  const part = (disposition: string, extra = '') => `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n${extra}\r\n`;
  const texts = fields.map(([name, value]) => `${part(`name="${name}"`)}${value}\r\n`).join('');
  const head = Buffer.from(`${texts}${part(`name="${file.field}"; filename="${file.fileName}"`, `Content-Type: ${file.contentType}\r\n`)}`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    yield* file.body.open() as AsyncIterable<Buffer>;
    yield tail;
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: { bytes: head.length + file.body.bytes + tail.length, open: () => Readable.from(parts()) },
  };
}

export async function encodeMultipart(form: FormData): Promise<Multipart> {
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

/** The file name an image is sent under, where a platform wants one: its type's usual extension. */
export function imageFileName(contentType: 'image/png' | 'image/jpeg'): string {
  return contentType === 'image/png' ? 'image.png' : 'image.jpg';
}

export type PlatformHttpOptions = {
  /** Development only: lets the server URL point at loopback and private networks. */
  allowPrivateNetworks: boolean;
  /** For each request. */
  timeoutMs?: number;
};

/** The platform's answer, whatever its status; `body` is the JSON object it sent, or empty. */
export type Answer = { status: number; headers: IncomingHttpHeaders; body: Record<string, unknown> };

export type PlatformRequest = {
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  json?: object;
  body?: RequestBody;
  /**
   * The request makes something the customer's audience sees (a post): once it is sent, a missing answer means the
   * outcome is unknown (SocialOutcomeUnknownError), not an outage.
   */
  creates?: boolean;
};

export type PlatformHttp = {
  /**
   * Throws SocialRejectedError for a server off the public internet, SocialUnavailableError when no answer came, and
   * SocialOutcomeUnknownError when no answer came to a request that `creates` after it was sent.
   */
  request(request: PlatformRequest): Promise<Answer>;
  /** The answer's non-empty string field, or SocialUnavailableError; `what` names the answer in the message. */
  textField(answer: Answer, field: string, what: string): string;
};

const defaultTimeoutMs = 30_000;
const streamedAnswerMs = 120_000;
const maxAnswerBytes = 1024 * 1024;

/** The origin of a server URL the user gave, which must be https; `name` says whose URL, e.g. "Mastodon instance URL". */
export function httpsOriginOf(serverUrl: string, name: string): URL {
  if (!URL.canParse(serverUrl)) throw new SocialRejectedError(`${name} is not a valid URL`, 'server');
  const url = new URL(serverUrl);
  if (url.protocol !== 'https:') throw new SocialRejectedError(`${name} must use https`, 'server');
  return new URL(url.origin);
}

/**
 * A link a platform gave us to show our clients (a post's page), kept only when it is an https URL of at most
 * `maxChars`: anything else (`javascript:`, `data:`, plain http, not a URL) would be handed on as ours.
 */
export function httpsLinkOf(value: unknown, maxChars: number): string | undefined {
  if (typeof value !== 'string' || value.length > maxChars || !URL.canParse(value)) return undefined;
  return new URL(value).protocol === 'https:' && isStorableText(value, maxChars) ? value : undefined;
}

// A server we must not reach (a private address, a port other than 443 and 80), or whose name does not exist (NXDOMAIN is the name servers' final word; a resolver
// in trouble says EAI_AGAIN instead, which stays a retryable outage): retrying cannot help, and a connection
// created with such a URL is the client's mistake (400), not our outage (503).
function isUnreachableForGood(error: unknown): boolean {
  for (const current of causesOf(error)) {
    if (current instanceof NonPublicAddressError || current instanceof DisallowedPortError) return true;
    if ((current as { code?: unknown }).code === 'ENOTFOUND') return true;
  }
  return false;
}

// Sent: the whole request was written to the socket (got's `upload` timing), so the server may have acted on it. A
// refused connection, a name that does not resolve, a TLS failure, or a reset while the body was still going out
// all happen before that: the server cannot have acted on a request it did not receive whole.
function wasSent(error: unknown): boolean {
  for (const current of causesOf(error)) if (current instanceof RequestError && current.timings?.upload !== undefined) return true;
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

/** HTTP to `platform` (its name, as error messages show it). */
export function createPlatformHttp(platform: string, options: PlatformHttpOptions): PlatformHttp {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const policy = addressPolicy(options.allowPrivateNetworks);

  return {
    async request({ method, url, headers, json, body, creates }) {
      let stream: Readable | undefined;
      try {
        const response = await withResponseSizeLimit(maxAnswerBytes, (signal) => {
          const streamed = body && !Buffer.isBuffer(body) ? body : undefined;
          stream = streamed?.open();
          return got(url, {
            ...policy,
            method,
            headers: streamed ? { ...headers, 'content-length': String(streamed.bytes) } : headers,
            ...(json ? { json } : {}),
            ...(stream ? { body: stream } : Buffer.isBuffer(body) ? { body } : {}),
            responseType: 'text',
            throwHttpErrors: false,
            followRedirect: false,
            retry: { limit: 0 },
            // A streamed upload takes as long as its bytes need: it is given up when the server stops reading for a
            // timeout's length, or has not answered two minutes after the last byte (a platform may answer a large
            // file only once it has handled it: Telegram's sendVideo), not after one timeout in all.
            timeout: stream ? { socket: timeoutMs, response: Math.max(timeoutMs, streamedAnswerMs) } : { request: timeoutMs },
            signal,
          });
        });
        return { status: response.statusCode, headers: response.headers, body: parseJson(response.body) };
      } catch (error) {
        // got's error carries the request options, tokens and passwords included: keep only the reason.
        const { reason } = toPublicFetchError(error, { what: platform, timeoutMs });
        if (isUnreachableForGood(error)) throw new SocialRejectedError(reason, 'server');
        if (creates && wasSent(error)) throw new SocialOutcomeUnknownError(`${reason} after the request was sent`);
        throw new SocialUnavailableError(reason);
      } finally {
        stream?.destroy();
      }
    },

    textField(answer, field, what) {
      const value = answer.body[field];
      // A reply without its fields after a write is not a refusal: retrying the write is safe, as each connector
      // makes its writes idempotent.
      if (typeof value !== 'string' || !value) throw new SocialUnavailableError(`${platform} answered ${what} (${answer.status}) without ${field}`);
      // An id, a token or a URI: kept as it is or not at all, and one that is not text will not become text on a retry.
      if (!isStorableText(value, fieldMaxChars))
        throw new SocialRejectedError(`${platform} answered ${what} with an unusable ${field} (not text, or over ${fieldMaxChars} characters)`, 'server');
      return value;
    },
  };
}
