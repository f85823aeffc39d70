import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isMp4 } from './mp4.ts';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for a Mastodon instance, speaking the part of its REST API that publishing uses: bearer tokens,
// media upload with asynchronous processing, and statuses with Mastodon's Idempotency-Key semantics (the same key
// gives back the status it first created). Errors are Mastodon's JSON `{ error }`.

type MastodonEndpoint = 'verify_credentials' | 'media' | 'media_status' | 'statuses';

/** A scripted answer whose error body is `{ error }` and whose `rateLimitReset` is X-RateLimit-Reset (an ISO time). */
type MastodonScriptedResponse = ScriptedResponse & { error?: string };

type MastodonRequest = { method: string; path: string; headers: IncomingHttpHeaders };

type MastodonMedia = { id: string; bytes: Buffer; contentType: string; fileName: string; description: string; pollsLeft: number };

type MastodonStatus = {
  id: string;
  text: string;
  visibility: string;
  media: MastodonMedia[];
  idempotencyKey: string | undefined;
  url: string;
  /** The status it replies to (`in_reply_to_id`), or null. */
  inReplyToId: string | null;
};

/** `url` is the instance URL. */
export type MastodonServer = ScriptedServer<MastodonEndpoint, MastodonScriptedResponse, MastodonRequest> & {
  token: string;
  /** The scopes the token was granted; each endpoint answers 403 without one of its own (endpointScopes). */
  scopes: string[];
  account: { id: string; username: string };
  /**
   * How many polls of a new upload answer 206 before 200; 0 answers the upload with 200 at once, else with 202. A
   * video is always processed afterwards: at least one poll answers 206.
   */
  processingPolls: number;
  statuses: MastodonStatus[];
  media: MastodonMedia[];
  /** The `url` a new status is given: by default its page on the instance (a test may give a hostile one). */
  statusUrlOf: (id: string) => string;
};

const imageSizeLimit = 16 * 1024 * 1024;
const videoSizeLimit = 103_809_024;
const descriptionLimit = 1_500;
const maxStatusGraphemes = 500;
// What each endpoint's OAuth line in Mastodon's reference asks of the token, any one of (a parent scope such as
// `read` or `write` grants its children): https://docs.joinmastodon.org/methods/accounts/#verify_credentials
// (`profile` or `read:accounts`), https://docs.joinmastodon.org/methods/media/#v2 and #get (`write:media`),
// https://docs.joinmastodon.org/methods/statuses/#create (`write:statuses`). Scopes: https://docs.joinmastodon.org/api/oauth-scopes/
const endpointScopes: Record<MastodonEndpoint, string[]> = {
  verify_credentials: ['profile', 'read:accounts', 'read'],
  media: ['write:media', 'write'],
  media_status: ['write:media', 'write'],
  statuses: ['write:statuses', 'write'],
};
// The scopes our docs ask a customer's token to have.
const documentedScopes = ['read:accounts', 'write:statuses', 'write:media'];
const defaultErrors: Record<number, string> = {
  401: 'The access token is invalid',
  403: 'This action is outside the authorized scopes',
  404: 'Record not found',
  422: 'Validation failed',
  429: 'Too many requests',
  500: "We're sorry, but something went wrong on our end.",
  503: 'Service Unavailable',
};
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// Mastodon counts every http(s) link as 23 characters, whatever its length (its StatusLengthValidator).
const linkLength = 23;

function statusLength(text: string): number {
  return Array.from(graphemes.segment(text.replace(/https?:\/\/\S+/g, 'x'.repeat(linkLength)))).length;
}

function failure(status: number, error = defaultErrors[status] ?? `The fake answered ${status}`): Reply {
  return { status, body: { error } };
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Starts the fake on 127.0.0.1 (port 0); it accepts only `Bearer <token>`. */
export async function startMastodonServer(options: { token?: string; scopes?: string[] } = {}): Promise<MastodonServer> {
  const token = options.token ?? `mastodon-token-${randomUUID()}`;
  const byIdempotencyKey = new Map<string, MastodonStatus>();
  let lastId = 113_000_000_000_000_000n;
  const nextId = () => String((lastId += 1n));

  const scripted = await startScriptedServer<MastodonEndpoint, MastodonScriptedResponse, MastodonRequest>({
    name: 'mastodon',
    rateLimitResetHeader: 'x-ratelimit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers }),
    route,
    failure: (status, { error }) => failure(status, error),
  });
  const server: MastodonServer = {
    ...scripted,
    token,
    scopes: options.scopes ?? documentedScopes,
    account: { id: '109000000000000001', username: 'alice' },
    processingPolls: 0,
    statuses: [],
    media: [],
    statusUrlOf: (id) => `${server.url}/@${server.account.username}/${id}`,
  };

  function mediaJson(media: MastodonMedia) {
    const ready = media.pollsLeft === 0;
    const video = media.contentType === 'video/mp4';
    const extension = video ? 'mp4' : media.contentType === 'image/png' ? 'png' : 'jpg';
    return {
      id: media.id,
      type: video ? 'video' : 'image',
      url: ready ? `${server.url}/system/media_attachments/${media.id}/original.${extension}` : null,
      preview_url: `${server.url}/system/media_attachments/${media.id}/small.${video ? 'png' : extension}`,
      description: media.description || null,
    };
  }

  function statusJson(status: MastodonStatus) {
    return {
      id: status.id,
      uri: `${server.url}/users/${server.account.username}/statuses/${status.id}`,
      url: status.url,
      visibility: status.visibility,
      content: `<p>${escapeHtml(status.text)}</p>`,
      in_reply_to_id: status.inReplyToId,
      media_attachments: status.media.map(mediaJson),
      account: { id: server.account.id, username: server.account.username, acct: server.account.username },
    };
  }

  function verifyCredentials(): Reply {
    const { id, username } = server.account;
    return { status: 200, body: { id, username, acct: username, display_name: 'Alice', url: `${server.url}/@${username}` } };
  }

  async function uploadMedia(received: Received): Promise<Reply> {
    const contentType = received.request.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data')) return failure(422, "Validation failed: File can't be blank");
    const form = await new Response(received.body, { headers: { 'content-type': contentType } }).formData();
    const file = form.get('file');
    if (!(file instanceof File)) return failure(422, "Validation failed: File can't be blank");
    const video = file.type === 'video/mp4';
    if (!file.type.startsWith('image/') && !video) return failure(422, 'Validation failed: File content type is invalid');
    // https://docs.joinmastodon.org/methods/media/#v2 and a default instance's configuration.media_attachments
    // (https://docs.joinmastodon.org/entities/Instance/#image_size_limit, #video_size_limit): images up to 16 MB,
    // videos up to 99 MB (103,809,024 bytes), descriptions up to 1,500 characters.
    const sizeLimit = video ? videoSizeLimit : imageSizeLimit;
    if (file.size > sizeLimit) return failure(422, `Validation failed: File file size must be less than ${Math.round(sizeLimit / 1024 / 1024)} MB`);
    const bytes = Buffer.from(await file.arrayBuffer());
    if (video && !isMp4(bytes)) return failure(422, 'Validation failed: File content type is invalid');
    const description = form.get('description');
    if (typeof description === 'string' && Array.from(description).length > descriptionLimit)
      return failure(422, `Validation failed: Description is too long (maximum is ${descriptionLimit} characters)`);
    const media: MastodonMedia = {
      id: nextId(),
      bytes,
      contentType: file.type,
      fileName: file.name,
      description: typeof description === 'string' ? description : '',
      // "Larger media formats (video, gifv, audio) will continue to be processed asynchronously and return 202."
      pollsLeft: video ? Math.max(1, server.processingPolls) : server.processingPolls,
    };
    server.media.push(media);
    // Like Mastodon, small images are processed during the upload, larger ones and videos afterwards.
    return { status: media.pollsLeft > 0 ? 202 : 200, body: mediaJson(media) };
  }

  function mediaStatus(id: string): Reply {
    const media = server.media.find((candidate) => candidate.id === id);
    if (!media) return failure(404);
    if (media.pollsLeft > 0) {
      const stillProcessing = { status: 206, body: mediaJson(media) };
      media.pollsLeft -= 1;
      return stillProcessing;
    }
    return { status: 200, body: mediaJson(media) };
  }

  function postStatus(received: Received): Reply {
    const idempotencyKey = received.request.headers['idempotency-key'];
    const key = typeof idempotencyKey === 'string' ? idempotencyKey : undefined;
    const earlier = key ? byIdempotencyKey.get(key) : undefined;
    if (earlier) return { status: 200, body: statusJson(earlier) };

    const body = jsonOf(received);
    const text = typeof body.status === 'string' ? body.status : '';
    const mediaIds = Array.isArray(body.media_ids) ? body.media_ids.map(String) : [];
    const visibility = typeof body.visibility === 'string' ? body.visibility : 'public';
    // https://docs.joinmastodon.org/methods/statuses/#create: the status replied to must exist (else 404).
    const inReplyToId = typeof body.in_reply_to_id === 'string' && body.in_reply_to_id ? body.in_reply_to_id : null;
    if (inReplyToId && !server.statuses.some((candidate) => candidate.id === inReplyToId)) return failure(404);
    if (!text && mediaIds.length === 0) return failure(422, "Validation failed: Text can't be blank");
    if (statusLength(text) > maxStatusGraphemes) {
      return failure(422, `Validation failed: Text character limit of ${maxStatusGraphemes} exceeded`);
    }
    if (!['public', 'unlisted', 'private', 'direct'].includes(visibility)) return failure(422, 'Validation failed: Visibility is not included in the list');
    if (mediaIds.length > 4) return failure(422, 'Validation failed: Media attachments exceed the limit of 4');
    const media = mediaIds.map((id) => server.media.find((candidate) => candidate.id === id));
    const missing = mediaIds.filter((_id, index) => !media[index]);
    if (missing.length > 0) return failure(422, `Media with IDs ${missing.join(', ')} could not be found`);
    const attached = media.filter((candidate) => candidate !== undefined);
    if (attached.some((candidate) => candidate.pollsLeft > 0)) {
      return failure(422, 'Cannot attach files that have not finished processing. Try again in a moment!');
    }

    const id = nextId();
    const status: MastodonStatus = { id, text, visibility, media: attached, idempotencyKey: key, url: server.statusUrlOf(id), inReplyToId };
    server.statuses.push(status);
    if (key) byIdempotencyKey.set(key, status);
    return { status: 200, body: statusJson(status) };
  }

  function endpointOf(method: string, path: string): Route<MastodonEndpoint> | undefined {
    if (method === 'GET' && path === '/api/v1/accounts/verify_credentials') return { endpoint: 'verify_credentials', handle: verifyCredentials };
    if (method === 'POST' && path === '/api/v2/media') return { endpoint: 'media', handle: uploadMedia };
    const mediaId = method === 'GET' ? /^\/api\/v1\/media\/([^/]+)$/.exec(path)?.[1] : undefined;
    if (mediaId) return { endpoint: 'media_status', handle: () => mediaStatus(decodeURIComponent(mediaId)) };
    if (method === 'POST' && path === '/api/v1/statuses') return { endpoint: 'statuses', handle: postStatus };
    return undefined;
  }

  function route(request: IncomingMessage, url: URL): Route<MastodonEndpoint> | Reply {
    const found = endpointOf(request.method ?? 'GET', url.pathname);
    if (!found) return failure(404);
    const authorized = request.headers.authorization === `Bearer ${token}`;
    const inScope = endpointScopes[found.endpoint].some((scope) => server.scopes.includes(scope));
    return { endpoint: found.endpoint, handle: (received) => (!authorized ? failure(401) : inScope ? found.handle(received) : failure(403)) };
  }

  return server;
}
