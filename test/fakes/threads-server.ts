import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  afterClientGivesUp,
  graphError,
  graphTime,
  invalidParameter,
  missingPermission,
  noSuchObject,
  oauthRefusal,
  paramsOf,
  redirectWithCode,
  tokenHolder,
  type MetaToken,
} from './meta-graph-fake.ts';
import { isMp4, videoFactsOf } from './mp4.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Threads, speaking the part of its API our OAuth platform and connector use, each endpoint
// after its documentation page (linked at its handler). Its errors are Graph API's error bodies
// (https://developers.facebook.com/docs/graph-api/guides/error-handling): `{error: {message, type, code,
// error_subcode, fbtrace_id}}`, except the code exchange's flat `{error_type, code, error_message}` (both in
// meta-graph-fake.ts, which the Instagram fake shares). Where the documentation is silent, the fake says so at the
// spot and does the least forgiving thing.

type ThreadsEndpoint = 'authorize' | 'token' | 'exchange' | 'refresh' | 'me' | 'create' | 'object' | 'publish' | 'list' | 'replies';

/** A scripted answer with a Graph error body: `code`, `subcode`, `message` override the status's usual ones. */
type ThreadsScriptedResponse = ScriptedResponse & { code?: number; subcode?: number; message?: string };

type ThreadsRequest = { method: string; path: string; query: URLSearchParams };

type ThreadsContainer = {
  id: string;
  userId: string;
  mediaType: 'TEXT' | 'IMAGE' | 'VIDEO';
  text: string;
  imageUrl: string | undefined;
  videoUrl: string | undefined;
  /** The video as the fake fetched it from `videoUrl`. */
  video: Buffer | undefined;
  altText: string | undefined;
  /** The thread it replies to (`reply_to_id`). */
  replyToId: string | undefined;
  /** The image as the fake fetched it from `imageUrl`. */
  image: { bytes: Buffer; contentType: string } | undefined;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  errorMessage: string | undefined;
  pollsLeft: number;
};

type ThreadsThread = {
  id: string;
  containerId: string;
  text: string;
  mediaType: 'TEXT_POST' | 'IMAGE';
  publishedAt: number;
  permalink: string;
  /** The thread it replies to, for a reply. */
  replyToId: string | undefined;
};

type Code = { redirectUri: string; expiresAt: number; used: boolean; scopes: string[] };

/** `url` is both the API's base URL and, with /oauth/authorize, the Authorization Window's. */
export type ThreadsServer = ScriptedServer<ThreadsEndpoint, ThreadsScriptedResponse, ThreadsRequest> & {
  authorizeUrl: string;
  /** The Threads app: its id and secret are our client id and secret. */
  app: { clientId: string; clientSecret: string };
  account: { id: string; username: string };
  /** How many status polls of a new container answer IN_PROGRESS before FINISHED. */
  processingPolls: number;
  /** Publishes the next `count` containers and answers only once the client has given up: a timeout after publishing. */
  timeOutAfterPublishing: number;
  containers: ThreadsContainer[];
  threads: ThreadsThread[];
  /** A token as Threads would have issued it `ageMs` ago (a long-lived one lasts 60 days, a short-lived one an hour). */
  /** A token of the account, with every permission we ask for unless told which. */
  issueToken(kind: 'short' | 'long', ageMs?: number, scopes?: readonly string[]): string;
  /** Makes the token expired. */
  expire(token: string): void;
};

const hourMs = 60 * 60 * 1000;
const lifetimeMs = { short: hourMs, long: 60 * 24 * hourMs };
const codeLifetimeMs = hourMs;
const maxTextCount = 500;
const maxAltText = 1_000;
const maxLinks = 5;
const allPermissions = ['threads_basic', 'threads_content_publish', 'threads_read_replies'];
// The permissions each endpoint requires, from its page: profiles (https://developers.facebook.com/docs/threads/threads-profiles),
// publishing (https://developers.facebook.com/docs/threads/posts), media and status
// (https://developers.facebook.com/docs/threads/threads-media), and a user's replies, a GET of the reply endpoints
// (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies: threads_read_replies).
const permissionsNeeded: Partial<Record<string, string[]>> = {
  me: ['threads_basic'],
  create: ['threads_basic', 'threads_content_publish'],
  publish: ['threads_basic', 'threads_content_publish'],
  list: ['threads_basic'],
  object: ['threads_basic'],
  replies: ['threads_basic', 'threads_read_replies'],
};
const maxImageBytes = 8_000_000;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The unique URLs Threads finds in a text, as the fake finds them: http(s) up to a space, closing punctuation aside. */
function uniqueLinks(text: string): number {
  const urls = (text.match(/https?:\/\/[^\s]+/gi) ?? []).map((url) => url.replace(/[.,;:!?)\]}'"]+$/, ''));
  // Scheme and host in any case are one URL; a path's case makes another.
  return new Set(urls.map((url) => url.replace(/^[a-z]+:\/\/[^/]+/i, (origin) => origin.toLowerCase()))).size;
}

// https://developers.facebook.com/docs/threads/posts#limitations: 500 characters, an emoji counting its UTF-8 bytes.
function textCount(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text))
    count += /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment) ? Buffer.byteLength(segment) : 1;
  return count;
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startThreadsServer(): Promise<ThreadsServer> {
  const tokens = new Map<string, MetaToken>();
  const codes = new Map<string, Code>();
  let lastId = 17_890_000_000_000_000n;
  const nextId = () => String((lastId += 1n));

  const scripted = await startScriptedServer<ThreadsEndpoint, ThreadsScriptedResponse, ThreadsRequest>({
    name: 'threads',
    // Threads documents no rate-limit reset header; scripts may still send Retry-After.
    rateLimitResetHeader: 'x-threads-unused-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams }),
    route,
    failure: (status, { code, subcode, message }) => graphError(status, { code, subcode, message }),
  });
  const server: ThreadsServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/oauth/authorize`,
    app: { clientId: '990602627938098', clientSecret: randomBytes(16).toString('hex') },
    account: { id: '25000000000000001', username: 'alice' },
    processingPolls: 0,
    timeOutAfterPublishing: 0,
    containers: [],
    threads: [],
    issueToken(kind, ageMs = 0, scopes = allPermissions) {
      const token = `TH${kind === 'long' ? 'L' : 'S'}${randomBytes(24).toString('base64url')}`;
      const issuedAt = Date.now() - ageMs;
      tokens.set(token, { kind, userId: server.account.id, issuedAt, expiresAt: issuedAt + lifetimeMs[kind], scopes: new Set(scopes) });
      return token;
    },
    expire(token) {
      const found = tokens.get(token);
      if (found) found.expiresAt = Date.now() - 1;
    },
  };

  /** The token's holder, or the Graph error Threads answers for a missing, unknown or expired token. */
  const tokenOf = (params: URLSearchParams, request: IncomingMessage, kind?: MetaToken['kind']): MetaToken | Reply =>
    tokenHolder(tokens, params, request, kind);

  // https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions#step-1--get-authorization:
  // the person approves at once; the code comes back on redirect_uri with the state, and "#_" appended.
  function authorize({ url }: Received): Reply {
    const params = url.searchParams;
    if (params.get('client_id') !== server.app.clientId) return invalidParameter('Invalid platform app');
    if (params.get('response_type') !== 'code') return invalidParameter('response_type must be code');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!URL.canParse(redirectUri)) return invalidParameter('redirect_uri is not a valid URL');
    const scopes = (params.get('scope') ?? '').split(/[ ,]/);
    if (!scopes.includes('threads_basic')) return invalidParameter('The threads_basic permission is required');
    const code = `AQB${randomBytes(24).toString('base64url')}`;
    codes.set(code, { redirectUri, expiresAt: Date.now() + codeLifetimeMs, used: false, scopes: scopes.filter(Boolean) });
    return redirectWithCode(redirectUri, code, params.get('state'));
  }

  // https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions#step-2--exchange-the-code-for-a-token:
  // codes last an hour and serve once; the redirect_uri must be the authorization's.
  function exchangeCode(received: Received): Reply {
    const params = paramsOf(received);
    if (params.get('client_id') !== server.app.clientId || params.get('client_secret') !== server.app.clientSecret)
      return oauthRefusal('Invalid client_id or client_secret');
    if (params.get('grant_type') !== 'authorization_code') return oauthRefusal('Unsupported grant_type');
    const code = codes.get(params.get('code') ?? '');
    if (!code || code.used || code.expiresAt <= Date.now()) return oauthRefusal('Invalid authorization code');
    if (params.get('redirect_uri') !== code.redirectUri)
      return oauthRefusal('Error validating verification code. Please make sure your redirect_uri is identical');
    code.used = true;
    return { status: 200, body: { access_token: server.issueToken('short', 0, code.scopes), user_id: Number(server.account.id) } };
  }

  // A long-lived token keeps the permissions of the token it was made from.
  function longLivedAnswer(from: MetaToken): Reply {
    const token = server.issueToken('long', 0, [...from.scopes]);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: lifetimeMs.long / 1000 } };
  }

  // https://developers.facebook.com/docs/threads/get-started/long-lived-tokens#get-a-long-lived-token
  function exchangeToken(received: Received): Reply {
    const params = paramsOf(received);
    if (params.get('grant_type') !== 'th_exchange_token') return invalidParameter('grant_type must be th_exchange_token');
    if (params.get('client_secret') !== server.app.clientSecret) return invalidParameter('Error validating client secret.');
    const holder = tokenOf(params, received.request, 'short');
    return 'status' in holder ? holder : longLivedAnswer(holder);
  }

  // https://developers.facebook.com/docs/threads/get-started/long-lived-tokens#refresh-a-long-lived-token: an
  // unexpired long-lived token gets 60 days again. The page does not say whether the token it was refreshed from
  // stops working, so the old one keeps its own expiry; nor how a token younger than 24 hours is refused (our
  // platform never asks then).
  function refreshToken(received: Received): Reply {
    const params = paramsOf(received);
    if (params.get('grant_type') !== 'th_refresh_token') return invalidParameter('grant_type must be th_refresh_token');
    const holder = tokenOf(params, received.request, 'long');
    return 'status' in holder ? holder : longLivedAnswer(holder);
  }

  // https://developers.facebook.com/docs/threads/threads-profiles
  function me(): Reply {
    return { status: 200, body: { id: server.account.id, username: server.account.username } };
  }

  /** Fetches the image as Threads does ("we will cURL your image"): a failure ends the container in ERROR. */
  async function fetchImage(container: ThreadsContainer): Promise<void> {
    try {
      const response = await fetch(container.imageUrl ?? '', { signal: AbortSignal.timeout(10_000) });
      const contentType = response.headers.get('content-type') ?? '';
      const bytes = Buffer.from(await response.arrayBuffer());
      if (!response.ok || !['image/png', 'image/jpeg'].includes(contentType) || bytes.length > maxImageBytes) throw new Error('unusable image');
      container.image = { bytes, contentType };
    } catch {
      // The documented error messages name no image failure; UNKNOWN is the one in the list that fits.
      container.status = 'ERROR';
      container.errorMessage = 'UNKNOWN';
    }
  }

  /**
   * Threads fetches the video from `video_url` and checks it against its video specifications
   * (https://developers.facebook.com/docs/threads/posts#video-specifications: MP4 or MOV, up to 1 GB and 5 minutes,
   * aspect ratio 0.01:1 to 10:1); a video it cannot take leaves the container in ERROR with one of the
   * `error_message` values of https://developers.facebook.com/docs/threads/troubleshooting.
   */
  async function fetchVideo(container: ThreadsContainer): Promise<void> {
    const refuse = (errorMessage: string): void => {
      container.status = 'ERROR';
      container.errorMessage = errorMessage;
    };
    let bytes: Buffer;
    try {
      const response = await fetch(container.videoUrl ?? '', { signal: AbortSignal.timeout(30_000) });
      if (!response.ok) return refuse('FAILED_DOWNLOADING_VIDEO');
      bytes = Buffer.from(await response.arrayBuffer());
    } catch {
      return refuse('FAILED_DOWNLOADING_VIDEO');
    }
    const facts = isMp4(bytes) && bytes.length <= 1_000_000_000 ? videoFactsOf(bytes) : undefined;
    if (!facts) return refuse('FAILED_PROCESSING_VIDEO');
    if (facts.seconds > 300) return refuse('INVALID_DURATION');
    if (facts.width / facts.height < 0.01 || facts.width / facts.height > 10) return refuse('INVALID_ASPEC_RATIO');
    container.video = bytes;
  }

  // https://developers.facebook.com/docs/threads/posts#step-1--create-a-threads-media-container and
  // https://developers.facebook.com/docs/threads/posts/accessibility (alt_text, at most 1,000 characters).
  async function createContainer(received: Received, userId: string): Promise<Reply> {
    const params = paramsOf(received);
    const mediaType = params.get('media_type');
    if (mediaType !== 'TEXT' && mediaType !== 'IMAGE' && mediaType !== 'VIDEO')
      return invalidParameter('Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}');
    const text = params.get('text') ?? '';
    if (mediaType === 'TEXT' && !text) return invalidParameter('Param text is required for media_type TEXT');
    if (textCount(text) > maxTextCount) return invalidParameter(`Param text must be at most ${maxTextCount} characters long`);
    // https://developers.facebook.com/docs/threads/posts/text-attachments: more than 5 unique links fail here.
    if (uniqueLinks(text) > maxLinks) return invalidParameter('THREADS_API__LINK_LIMIT_EXCEEDED: a post may contain at most 5 links');
    const altText = params.get('alt_text') ?? undefined;
    if (altText !== undefined && Array.from(altText).length > maxAltText)
      return invalidParameter(`Param alt_text must be at most ${maxAltText} characters long`);
    const imageUrl = params.get('image_url') ?? undefined;
    if (mediaType === 'IMAGE' && !imageUrl) return invalidParameter('Param image_url is required for media_type IMAGE');
    const videoUrl = params.get('video_url') ?? undefined;
    if (mediaType === 'VIDEO' && !videoUrl) return invalidParameter('Param video_url is required for media_type VIDEO');
    // https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/create-replies: `reply_to_id` names
    // the thread replied to; one Threads does not know is refused as any unknown object is.
    const replyToId = params.get('reply_to_id') ?? undefined;
    if (replyToId !== undefined && !server.threads.some((thread) => thread.id === replyToId)) return noSuchObject(replyToId);
    const container: ThreadsContainer = {
      id: nextId(),
      userId,
      mediaType,
      text,
      imageUrl,
      videoUrl,
      video: undefined,
      altText,
      replyToId,
      image: undefined,
      status: 'IN_PROGRESS',
      errorMessage: undefined,
      // A video takes Threads a while: at least one status check answers IN_PROGRESS.
      pollsLeft: mediaType === 'VIDEO' ? Math.max(1, server.processingPolls) : server.processingPolls,
    };
    if (mediaType === 'IMAGE') await fetchImage(container);
    if (mediaType === 'VIDEO') await fetchVideo(container);
    server.containers.push(container);
    return { status: 200, body: { id: container.id } };
  }

  // https://developers.facebook.com/docs/threads/troubleshooting#publishing-does-not-return-a-media-id (a
  // container's status) and https://developers.facebook.com/docs/threads/reference/media (a thread's fields).
  function readObject(received: Received, id: string, holder: MetaToken): Reply {
    const fields = (received.url.searchParams.get('fields') ?? 'id').split(',');
    const container = server.containers.find((candidate) => candidate.id === id && candidate.userId === holder.userId);
    if (container) {
      if (container.status === 'IN_PROGRESS') {
        if (container.pollsLeft > 0) container.pollsLeft -= 1;
        else container.status = 'FINISHED';
      }
      const body: Record<string, unknown> = { id, status: container.status };
      if (fields.includes('error_message') && container.errorMessage) body.error_message = container.errorMessage;
      return { status: 200, body };
    }
    const thread = server.threads.find((candidate) => candidate.id === id);
    return thread ? { status: 200, body: threadJson(thread, fields) } : noSuchObject(id);
  }

  function threadJson(thread: ThreadsThread, fields: string[]): Record<string, unknown> {
    const all: Record<string, unknown> = {
      id: thread.id,
      text: thread.text,
      timestamp: graphTime(thread.publishedAt),
      permalink: thread.permalink,
      media_type: thread.mediaType,
      username: server.account.username,
    };
    return Object.fromEntries(Object.entries(all).filter(([name]) => name === 'id' || fields.includes(name)));
  }

  // https://developers.facebook.com/docs/threads/posts#step-2--publish-a-threads-media-container. Publishing a
  // container that is already published is not documented: the fake takes the worst case and posts it again, so
  // that a test sees any duplicate the connector would cause.
  async function publish(received: Received, userId: string): Promise<Reply> {
    const id = paramsOf(received).get('creation_id') ?? '';
    const container = server.containers.find((candidate) => candidate.id === id && candidate.userId === userId);
    // Met in practice for a container Threads has not finished taking in (not documented).
    if (!container || container.status === 'IN_PROGRESS')
      return graphError(400, { code: 24, subcode: 4279009, message: 'The requested resource does not exist' });
    if (container.status === 'ERROR' || container.status === 'EXPIRED')
      return invalidParameter(`The media container cannot be published (${container.status})`);
    const thread: ThreadsThread = {
      id: nextId(),
      containerId: container.id,
      text: container.text,
      mediaType: container.mediaType === 'TEXT' ? 'TEXT_POST' : 'IMAGE',
      publishedAt: Date.now(),
      permalink: `${server.url}/@${server.account.username}/post/${randomBytes(8).toString('base64url')}`,
      replyToId: container.replyToId,
    };
    server.threads.push(thread);
    container.status = 'PUBLISHED';
    if (server.timeOutAfterPublishing > 0) {
      server.timeOutAfterPublishing -= 1;
      await afterClientGivesUp(received.request);
    }
    return { status: 200, body: { id: thread.id } };
  }

  // https://developers.facebook.com/docs/threads/retrieve-and-discover-posts/retrieve-posts: newest first, `since`
  // and `until` in Unix seconds, 25 a page by default; the account's replies are listed apart
  // (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/replies-and-conversations).
  function list(received: Received, userId: string, replies = false): Reply {
    const params = received.url.searchParams;
    const fields = (params.get('fields') ?? 'id').split(',');
    const since = Number(params.get('since') ?? 0) * 1000;
    const until = params.has('until') ? Number(params.get('until')) * 1000 : Infinity;
    const limit = Number(params.get('limit') ?? 25);
    const own = new Set(server.containers.filter((container) => container.userId === userId).map((container) => container.id));
    const data = server.threads
      .filter((thread) => own.has(thread.containerId) && (thread.replyToId !== undefined) === replies)
      .filter((thread) => thread.publishedAt >= since && thread.publishedAt <= until)
      .sort((a, b) => b.publishedAt - a.publishedAt)
      .slice(0, limit)
      .map((thread) => threadJson(thread, fields));
    return { status: 200, body: { data, paging: { cursors: { before: 'BEFORE', after: 'AFTER' } } } };
  }

  function endpointOf(method: string, path: string): Route<ThreadsEndpoint> | undefined {
    const open = (endpoint: ThreadsEndpoint, handle: Route<ThreadsEndpoint>['handle']) => ({ endpoint, handle });
    if (method === 'GET' && path === '/oauth/authorize') return open('authorize', authorize);
    if (method === 'POST' && path === '/oauth/access_token') return open('token', exchangeCode);
    if (method === 'GET' && path === '/access_token') return open('exchange', exchangeToken);
    if (method === 'GET' && path === '/refresh_access_token') return open('refresh', refreshToken);

    // The Graph API proper: a valid token first, then the user in the path must be the token's.
    const withToken = (endpoint: ThreadsEndpoint, handle: (received: Received, holder: MetaToken) => Reply | Promise<Reply>) => ({
      endpoint,
      handle: (received: Received) => {
        const holder = tokenOf(paramsOf(received), received.request);
        if ('status' in holder) return holder;
        if ((permissionsNeeded[endpoint] ?? []).some((permission) => !holder.scopes.has(permission))) return missingPermission();
        return handle(received, holder);
      },
    });
    if (method === 'GET' && path === '/v1.0/me') return withToken('me', me);
    const [, userId, edge] = /^\/v1\.0\/([^/]+)\/(threads|threads_publish|replies)$/.exec(path) ?? [];
    if (userId && edge) {
      const forUser = (handle: (received: Received, user: string) => Reply | Promise<Reply>) => (received: Received, holder: MetaToken) =>
        decodeURIComponent(userId) === holder.userId ? handle(received, holder.userId) : noSuchObject(decodeURIComponent(userId));
      if (method === 'POST' && edge === 'threads') return withToken('create', forUser(createContainer));
      if (method === 'GET' && edge === 'threads') return withToken('list', forUser(list));
      if (method === 'GET' && edge === 'replies')
        return withToken(
          'replies',
          forUser((received, user) => list(received, user, true)),
        );
      if (method === 'POST' && edge === 'threads_publish') return withToken('publish', forUser(publish));
    }
    const objectId = method === 'GET' ? /^\/v1\.0\/([^/]+)$/.exec(path)?.[1] : undefined;
    if (objectId) return withToken('object', (received, holder) => readObject(received, decodeURIComponent(objectId), holder));
    return undefined;
  }

  function route(request: IncomingMessage, url: URL): Route<ThreadsEndpoint> | Reply {
    return endpointOf(request.method ?? 'GET', url.pathname) ?? graphError(400, { code: 100, message: `Unknown path components: ${url.pathname}` });
  }

  return server;
}
