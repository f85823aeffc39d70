import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isMp4, videoFactsOf } from './mp4.ts';
import { multipartPartsOf } from './multipart-parts.ts';
import { loadOpenApiContract, type ApiContract } from './openapi-contract.ts';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for X: its OAuth 2.0 authorization code flow with PKCE and the part of API v2 that publishing
// uses. Each endpoint links the page that documents it. What it cannot show of the real X: the consent screen (it
// answers as a person who consents, or refuses when told), app permissions and tiers, X's real rate-limit windows
// (a test scripts a 429), t.co's real link lengths, media processing (images are ready at once), and how long X
// remembers a text as "duplicate content" (here: for ever).

type XEndpoint =
  | 'authorize'
  | 'token'
  | 'users_me'
  | 'media_upload'
  | 'media_initialize'
  | 'media_append'
  | 'media_finalize'
  | 'media_status'
  | 'media_metadata'
  | 'tweets'
  | 'user_tweets';

type XRequest = { method: string; path: string; headers: IncomingHttpHeaders; query: URLSearchParams };

type XTweet = {
  id: string;
  authorId: string;
  text: string;
  mediaIds: string[];
  createdAt: Date;
  /** The post it replies to (`reply.in_reply_to_tweet_id`). */
  inReplyToTweetId: string | undefined;
};
type XMedia = { id: string; bytes: Buffer; mediaType: string; category: string; altText: string | undefined };
/** A video uploaded in parts: its segments by index, and the status checks left before X has processed it. */
type XUpload = { id: string; totalBytes: number; segments: Map<number, Buffer>; finalized: boolean; checksLeft: number; failure?: string };

type Grant = { clientId: string; redirectUri: string; challenge: string; scopes: string[] };
type AccessToken = { expiresAt: number; userId: string; scopes: Set<string> };

/** `url` is the API's base (X_API_URL); `authorizeUrl` its authorization page (X_AUTHORIZE_URL). */
export type XServer = ScriptedServer<XEndpoint, ScriptedResponse, XRequest> & {
  authorizeUrl: string;
  client: { clientId: string; clientSecret: string };
  account: { id: string; username: string; name: string };
  /** How the person answers the consent screen: `consent` (redirect with a code) or `deny` (access_denied). */
  decision: 'consent' | 'deny';
  /** How long the access tokens issued from now on last. */
  accessTokenLifetimeSeconds: number;
  /** Videos being uploaded in parts, by media id. */
  uploads: Map<string, XUpload>;
  /** How many status checks of a finalized video answer `in_progress` before `succeeded` (0: succeeded at finalize). */
  videoProcessingChecks: number;
  /** The next post is created, then its answer never comes (the client times out). */
  timeOutAfterNextTweet: boolean;
  tweets: XTweet[];
  media: XMedia[];
  /** The refresh token that works now (each refresh rotates it); undefined before the first exchange. */
  currentRefreshToken(): string | undefined;
  /** Every refresh token that was rotated away and is refused from now on. */
  retiredRefreshTokens: string[];
  /** Grants an access token without the flow (adapter tests), with every scope we ask for unless told which. */
  issueAccessToken(lifetimeSeconds?: number, scopes?: string[]): string;
};

const maxWeighted = 280;
const allScopes = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'];
// Each endpoint's "OAuth 2.0 scopes required", from its page: https://docs.x.com/x-api/users/get-my-user,
// https://docs.x.com/x-api/media/upload-media (and its chunked steps: initialize, append, finalize, get status),
// https://docs.x.com/x-api/media/create-media-metadata,
// https://docs.x.com/x-api/posts/create-post, https://docs.x.com/x-api/users/get-posts.
const scopesNeeded: Record<string, string[]> = {
  users_me: ['tweet.read', 'users.read'],
  media_upload: ['media.write'],
  media_initialize: ['media.write'],
  media_append: ['media.write'],
  media_finalize: ['media.write'],
  media_status: ['media.write'],
  media_metadata: ['media.write'],
  tweets: ['tweet.read', 'tweet.write', 'users.read'],
  user_tweets: ['tweet.read', 'users.read'],
};
const linkLength = 23;
const videoMaxBytes = 512 * 1024 * 1024;
const segmentMaxBytes = 5 * 1024 * 1024;
const invalidRequestType = 'https://api.twitter.com/2/problems/invalid-request';
const problem = (status: number, title: string, detail: string, type = 'about:blank'): Reply => ({ status, body: { title, detail, type, status } });
const defaultProblems: Record<number, Reply> = {
  400: problem(400, 'Invalid Request', 'One or more parameters to your request was invalid.', 'https://api.twitter.com/2/problems/invalid-request'),
  401: problem(401, 'Unauthorized', 'Unauthorized'),
  403: problem(403, 'Forbidden', 'You are not permitted to perform this action.'),
  404: problem(404, 'Not Found Error', 'Could not find the requested resource.', 'https://api.twitter.com/2/problems/resource-not-found'),
  429: problem(429, 'Too Many Requests', 'Too Many Requests'),
  500: problem(500, 'Internal Server Error', 'Internal Server Error'),
  503: problem(503, 'Service Unavailable', 'Service Unavailable'),
};
// RFC 6749 §5.2, in X's words for a used, expired or revoked code or refresh token.
const invalidGrant: Reply = { status: 400, body: { error: 'invalid_grant', error_description: 'Value passed for the token was invalid.' } };
const invalidClient: Reply = { status: 401, body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' } };

function failure(status: number): Reply {
  const reply = defaultProblems[status] ?? problem(status, 'Error', `The fake answered ${status}`);
  // https://docs.x.com/x-api/fundamentals/rate-limits: every answer tells the window; a 429 says it is used up.
  return status === 429 ? { ...reply, headers: { 'x-rate-limit-limit': '100', 'x-rate-limit-remaining': '0' } } : reply;
}

// X's own description of API v2 (test/fixtures/platform-apis/x), read once per process: every /2/ request is checked
// against it, and one that breaks it is refused as X refuses an invalid request, its problems in `errors`.
let contract: ApiContract | undefined;
async function contractRefusal(received: Received): Promise<Reply | undefined> {
  contract ??= loadOpenApiContract(new URL('../fixtures/platform-apis/x/openapi.json', import.meta.url).pathname);
  const json = await bodyOf(received);
  const problems = contract.problemsOf({ method: received.request.method ?? 'GET', path: received.url.pathname, query: received.url.searchParams, json });
  if (problems.length === 0) return undefined;
  const reply = defaultProblems[400]!;
  return { ...reply, body: { ...(reply.body as object), errors: problems.map((message) => ({ message })) } };
}

/** The body as the description's schema reads it: JSON parsed, or a multipart form's fields (a file as `binary`). */
async function bodyOf(received: Received): Promise<unknown> {
  if ((received.request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    const parts = await multipartPartsOf(received);
    return Object.fromEntries(parts.map(({ name, value, file }) => [name, file ? 'binary' : /^\d+$/.test(value ?? '') ? Number(value) : value]));
  }
  const text = received.body.toString('utf8');
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

/** Why X would fail a video at processing (https://docs.x.com/x-api/media/quickstart/best-practices), or undefined. */
function videoRefusal(bytes: Buffer): string | undefined {
  const facts = isMp4(bytes) ? videoFactsOf(bytes) : undefined;
  if (!facts) return 'Invalid or Unsupported media, Reason: UnsupportedMedia.';
  const { seconds, width, height } = facts;
  if (seconds < 0.5 || seconds > 140) return `Invalid or Unsupported media, Reason: Duration ${seconds} s is not between 0.5 and 140 seconds.`;
  if (width / height < 1 / 3 || width / height > 3) return `Invalid or Unsupported media, Reason: Aspect ratio ${width}:${height} is not between 1:3 and 3:1.`;
  return undefined;
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** X's weighted count, as the fake checks it: links 23, code points outside the light ranges 2, emoji 2. */
function weighted(text: string): number {
  const light = (codePoint: number) =>
    codePoint <= 4351 || (codePoint >= 8192 && codePoint <= 8205) || (codePoint >= 8208 && codePoint <= 8223) || (codePoint >= 8242 && codePoint <= 8247);
  let count = 0;
  for (const word of text.normalize('NFC').split(/(\s+)/)) {
    if (/^https?:\/\/\S+$/i.test(word)) count += linkLength;
    else
      for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(word)) {
        count += /\p{Extended_Pictographic}/u.test(segment) ? 2 : Array.from(segment).reduce((sum, char) => sum + (light(char.codePointAt(0) ?? 0) ? 1 : 2), 0);
      }
  }
  return count;
}

function escapeEntities(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startXServer(): Promise<XServer> {
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  let refreshToken: string | undefined;
  let lastId = 1_860_000_000_000_000_000n;
  const nextId = () => String((lastId += 1n));

  const scripted = await startScriptedServer<XEndpoint, ScriptedResponse, XRequest>({
    name: 'x',
    rateLimitResetHeader: 'x-rate-limit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers, query: url.searchParams }),
    route,
    failure: (status) => failure(status),
  });
  const server: XServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/i/oauth2/authorize`,
    client: { clientId: `x-client-${randomBytes(6).toString('hex')}`, clientSecret: randomBytes(24).toString('base64url') },
    account: { id: '1500000000000000001', username: 'alice_x', name: 'Alice' },
    decision: 'consent',
    accessTokenLifetimeSeconds: 7200,
    timeOutAfterNextTweet: false,
    tweets: [],
    media: [],
    uploads: new Map(),
    videoProcessingChecks: 1,
    currentRefreshToken: () => refreshToken,
    retiredRefreshTokens: [],
    issueAccessToken: (lifetimeSeconds = server.accessTokenLifetimeSeconds, scopes = allScopes) => {
      const token = base64url(randomBytes(32));
      accessTokens.set(token, { expiresAt: Date.now() + lifetimeSeconds * 1000, userId: server.account.id, scopes: new Set(scopes) });
      return token;
    },
  };

  /** https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code: the person consents, X redirects back. */
  function authorize({ url }: Received): Reply {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== server.client.clientId || !URL.canParse(redirectUri)) return failure(400);
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const challenge = query.get('code_challenge') ?? '';
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    if (query.get('response_type') !== 'code' || query.get('code_challenge_method') !== 'S256' || !challenge || scopes.length === 0) {
      back.searchParams.set('error', 'invalid_request');
    } else if (server.decision === 'deny') {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = base64url(randomBytes(24));
      grants.set(code, { clientId: server.client.clientId, redirectUri, challenge, scopes });
      back.searchParams.set('code', code);
    }
    return { status: 302, body: {}, headers: { location: back.toString() } };
  }

  // The scopes the person granted stay with the refresh token: a refreshed access token has the same.
  let grantedScopes = allScopes;
  function tokens(scopes = grantedScopes): Reply {
    grantedScopes = scopes;
    const accessToken = server.issueAccessToken(server.accessTokenLifetimeSeconds, scopes);
    if (refreshToken) server.retiredRefreshTokens.push(refreshToken);
    refreshToken = base64url(randomBytes(32));
    return {
      status: 200,
      body: {
        token_type: 'bearer',
        expires_in: server.accessTokenLifetimeSeconds,
        access_token: accessToken,
        scope: scopes.join(' '),
        refresh_token: refreshToken,
      },
    };
  }

  /** https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token: code exchange and refresh, Basic client auth. */
  function token(received: Received): Reply {
    const expected = `Basic ${Buffer.from(`${server.client.clientId}:${server.client.clientSecret}`).toString('base64')}`;
    if (received.request.headers.authorization !== expected) return invalidClient;
    const form = new URLSearchParams(received.body.toString('utf8'));
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const grant = grants.get(code);
      // A code is good once.
      grants.delete(code);
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || grant.redirectUri !== form.get('redirect_uri')) return invalidGrant;
      if (base64url(createHash('sha256').update(verifier).digest()) !== grant.challenge) return invalidGrant;
      return tokens(grant.scopes);
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!refreshToken || form.get('refresh_token') !== refreshToken) return invalidGrant;
      return tokens();
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type is not supported' } };
  }

  /** https://docs.x.com/x-api/users/get-my-user */
  function usersMe(): Reply {
    return { status: 200, body: { data: { id: server.account.id, name: server.account.name, username: server.account.username } } };
  }

  /** https://docs.x.com/x-api/media/upload-media: one request, the bytes in base64. */
  function mediaUpload(received: Received): Reply {
    const body = jsonOf(received);
    if (typeof body.media !== 'string' || body.media_category !== 'tweet_image') return failure(400);
    const bytes = Buffer.from(body.media, 'base64');
    if (bytes.length > 5 * 1024 * 1024)
      return problem(400, 'Invalid Request', 'File size exceeds 5242880 bytes.', 'https://api.twitter.com/2/problems/invalid-request');
    const media: XMedia = {
      id: nextId(),
      bytes,
      // The one-shot upload names no type (X's description allows no `media_type` there): X reads it from the bytes.
      mediaType: bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
        ? 'image/png'
        : bytes[0] === 0xff && bytes[1] === 0xd8
          ? 'image/jpeg'
          : 'application/octet-stream',
      category: body.media_category,
      altText: undefined,
    };
    server.media.push(media);
    return {
      status: 200,
      body: {
        data: {
          id: media.id,
          media_key: `3_${media.id}`,
          size: bytes.length,
          expires_after_secs: 86_400,
          processing_info: { state: 'succeeded', progress_percent: 100 },
        },
      },
    };
  }

  /** https://docs.x.com/x-api/media/create-media-metadata */
  function mediaMetadata(received: Received): Reply {
    const body = jsonOf(received);
    const media = server.media.find((candidate) => candidate.id === body.id);
    if (!media) return failure(404);
    const altText = (body.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text?.text;
    if (typeof altText === 'string') {
      if (Array.from(altText).length > 1000) return failure(400);
      media.altText = altText;
    }
    return { status: 200, body: { data: { id: media.id, associated_metadata: { alt_text: { text: media.altText } } } } };
  }

  /** https://docs.x.com/x-api/posts/create-post */
  async function createTweet(received: Received, userId: string): Promise<Reply> {
    const body = jsonOf(received);
    const text = typeof body.text === 'string' ? body.text : '';
    const mediaIds = ((body.media as { media_ids?: unknown } | undefined)?.media_ids ?? []) as unknown[];
    if (!text && mediaIds.length === 0) return failure(400);
    if (weighted(text) > maxWeighted)
      return problem(400, 'Invalid Request', 'Text exceeds 280 weighted characters.', 'https://api.twitter.com/2/problems/invalid-request');
    // A video X has not finished processing (or failed) is no media a post can carry yet.
    const unready = (id: unknown) => {
      const upload = server.uploads.get(String(id));
      return upload !== undefined && (upload.checksLeft > 0 || upload.failure !== undefined);
    };
    if (mediaIds.some((id) => !server.media.some((media) => media.id === id) || unready(id))) {
      return problem(400, 'Invalid Request', 'Your media IDs are invalid.');
    }
    const inReplyTo = (body.reply as { in_reply_to_tweet_id?: unknown } | undefined)?.in_reply_to_tweet_id;
    if (inReplyTo !== undefined && !server.tweets.some((tweet) => tweet.id === inReplyTo)) {
      return problem(403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.');
    }
    if (server.tweets.some((tweet) => tweet.authorId === userId && tweet.text === text)) {
      return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
    }
    const tweet: XTweet = {
      id: nextId(),
      authorId: userId,
      text,
      mediaIds: mediaIds.map(String),
      createdAt: new Date(),
      inReplyToTweetId: typeof inReplyTo === 'string' ? inReplyTo : undefined,
    };
    server.tweets.push(tweet);
    if (server.timeOutAfterNextTweet) {
      server.timeOutAfterNextTweet = false;
      // The post exists; its answer never comes, until the client gives up and hangs up.
      await once(received.request.socket, 'close');
    }
    return { status: 201, body: { data: { id: tweet.id, text: tweet.text, edit_history_tweet_ids: [tweet.id] } } };
  }

  /** A post as X lists it: entities escaped, each link a t.co link, the media's t.co link at the end. */
  function tweetJson(tweet: XTweet) {
    const urls: Array<Record<string, unknown>> = [];
    let text = escapeEntities(tweet.text).replace(/https?:\/\/\S+/gi, (link) => {
      const short = `https://t.co/${base64url(randomBytes(8)).slice(0, 10)}`;
      urls.push({ url: short, expanded_url: link, display_url: link.replace(/^https?:\/\//, '') });
      return short;
    });
    for (const mediaId of tweet.mediaIds) {
      const short = `https://t.co/${base64url(randomBytes(8)).slice(0, 10)}`;
      text = `${text} ${short}`;
      urls.push({ url: short, expanded_url: `https://x.com/${server.account.username}/status/${tweet.id}/photo/1`, media_key: `3_${mediaId}` });
    }
    return {
      id: tweet.id,
      text,
      created_at: tweet.createdAt.toISOString(),
      edit_history_tweet_ids: [tweet.id],
      ...(tweet.inReplyToTweetId ? { referenced_tweets: [{ type: 'replied_to', id: tweet.inReplyToTweetId }] } : {}),
      ...(urls.length > 0 ? { entities: { urls } } : {}),
    };
  }

  /**
   * https://docs.x.com/x-api/media/initialize-media-upload. The limits X's media best practices give for a
   * `tweet_video` (https://docs.x.com/x-api/media/quickstart/best-practices): up to 512 MB here, 0.5 to 140
   * seconds and 1:3 to 3:1 at finalize.
   */
  function mediaInitialize(received: Received): Reply {
    const body = jsonOf(received);
    if (body.media_category !== 'tweet_video' || body.media_type !== 'video/mp4' || typeof body.total_bytes !== 'number') return failure(400);
    if (body.total_bytes > videoMaxBytes) return problem(400, 'Invalid Request', `File size exceeds ${videoMaxBytes} bytes.`, invalidRequestType);
    const upload: XUpload = { id: nextId(), totalBytes: body.total_bytes, segments: new Map(), finalized: false, checksLeft: 0 };
    server.uploads.set(upload.id, upload);
    return { status: 200, body: { data: { id: upload.id, media_key: `7_${upload.id}`, expires_after_secs: 86_400 } } };
  }

  /** https://docs.x.com/x-api/media/append-media-upload: multipart, `media` and `segment_index`; a segment sent again replaces itself. */
  async function mediaAppend(received: Received, id: string): Promise<Reply> {
    const upload = server.uploads.get(id);
    if (!upload || upload.finalized) return failure(404);
    const parts = await multipartPartsOf(received);
    const media = parts.find((part) => part.name === 'media')?.file?.bytes;
    const index = Number(parts.find((part) => part.name === 'segment_index')?.value);
    if (!media || !Number.isInteger(index)) return failure(400);
    if (media.length > segmentMaxBytes) return problem(400, 'Invalid Request', `Segment size exceeds ${segmentMaxBytes} bytes.`, invalidRequestType);
    upload.segments.set(index, media);
    return { status: 200, body: { data: { expires_at: Math.floor(Date.now() / 1000) + 86_400 } } };
  }

  /** https://docs.x.com/x-api/media/finalize-media-upload: the segments must make the size announced, a video X takes. */
  function mediaFinalize(id: string): Reply {
    const upload = server.uploads.get(id);
    if (!upload) return failure(404);
    const indexes = [...upload.segments.keys()].sort((a, b) => a - b);
    const bytes = Buffer.concat(indexes.map((index) => upload.segments.get(index)!));
    if (indexes.some((index, at) => index !== at) || bytes.length !== upload.totalBytes) {
      return problem(400, 'Invalid Request', 'Segments do not add up to provided total file size.', invalidRequestType);
    }
    upload.failure = videoRefusal(bytes);
    upload.finalized = true;
    upload.checksLeft = upload.failure ? 0 : server.videoProcessingChecks;
    if (!upload.failure && !server.media.some((media) => media.id === id)) {
      server.media.push({ id, bytes, mediaType: 'video/mp4', category: 'tweet_video', altText: undefined });
    }
    return { status: 200, body: { data: uploadJson(upload) } };
  }

  /** https://docs.x.com/x-api/media/get-media-upload-status */
  function mediaStatus({ url }: Received): Reply {
    const upload = server.uploads.get(url.searchParams.get('media_id') ?? '');
    if (!upload?.finalized) return failure(404);
    const answer = { status: 200, body: { data: uploadJson(upload) } };
    if (upload.checksLeft > 0) upload.checksLeft -= 1;
    return answer;
  }

  function uploadJson(upload: XUpload) {
    const state = upload.failure ? 'failed' : upload.checksLeft > 0 ? 'in_progress' : 'succeeded';
    return {
      id: upload.id,
      media_key: `7_${upload.id}`,
      size: upload.totalBytes,
      processing_info: {
        state,
        ...(state === 'in_progress' ? { check_after_secs: 1, progress_percent: 50 } : { progress_percent: 100 }),
        ...(upload.failure ? { error: { code: 1, name: 'InvalidMedia', message: upload.failure } } : {}),
      },
    };
  }

  /** https://docs.x.com/x-api/users/get-posts: newest first, from `start_time`, at most `max_results`, without `exclude`d replies. */
  function userTweets({ url }: Received, userId: string): Reply {
    const startTime = url.searchParams.get('start_time');
    const since = startTime ? Date.parse(startTime) : 0;
    const max = Math.min(100, Math.max(5, Number(url.searchParams.get('max_results') ?? 10)));
    const withoutReplies = (url.searchParams.get('exclude') ?? '').split(',').includes('replies');
    const listed = server.tweets
      .filter((tweet) => tweet.authorId === userId && tweet.createdAt.getTime() >= since)
      .filter((tweet) => !(withoutReplies && tweet.inReplyToTweetId))
      .reverse()
      .slice(0, max);
    return { status: 200, body: listed.length > 0 ? { data: listed.map(tweetJson), meta: { result_count: listed.length } } : { meta: { result_count: 0 } } };
  }

  function authorized(request: IncomingMessage): AccessToken | undefined {
    const header = request.headers.authorization ?? '';
    const found = header.startsWith('Bearer ') ? accessTokens.get(header.slice('Bearer '.length)) : undefined;
    return found && found.expiresAt > Date.now() ? found : undefined;
  }

  function route(request: IncomingMessage, url: URL): Route<XEndpoint> | Reply {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/i/oauth2/authorize') return { endpoint: 'authorize', handle: authorize };
    if (method === 'POST' && path === '/2/oauth2/token') return { endpoint: 'token', handle: token };
    const userTweetsOf = method === 'GET' ? /^\/2\/users\/([0-9]+)\/tweets$/.exec(path)?.[1] : undefined;
    const appending = method === 'POST' ? /^\/2\/media\/upload\/([0-9]+)\/append$/.exec(path)?.[1] : undefined;
    const finalizing = method === 'POST' ? /^\/2\/media\/upload\/([0-9]+)\/finalize$/.exec(path)?.[1] : undefined;
    const found: Route<XEndpoint> | undefined =
      method === 'GET' && path === '/2/users/me'
        ? { endpoint: 'users_me', handle: usersMe }
        : method === 'POST' && path === '/2/media/upload'
          ? { endpoint: 'media_upload', handle: mediaUpload }
          : method === 'POST' && path === '/2/media/upload/initialize'
            ? { endpoint: 'media_initialize', handle: mediaInitialize }
            : appending
              ? { endpoint: 'media_append', handle: (received) => mediaAppend(received, appending) }
              : finalizing
                ? { endpoint: 'media_finalize', handle: () => mediaFinalize(finalizing) }
                : method === 'GET' && path === '/2/media/upload'
                  ? { endpoint: 'media_status', handle: mediaStatus }
                  : method === 'POST' && path === '/2/media/metadata'
                    ? { endpoint: 'media_metadata', handle: mediaMetadata }
                    : method === 'POST' && path === '/2/tweets'
                      ? { endpoint: 'tweets', handle: (received) => createTweet(received, authorized(received.request)?.userId ?? '') }
                      : userTweetsOf
                        ? { endpoint: 'user_tweets', handle: (received) => userTweets(received, userTweetsOf) }
                        : undefined;
    if (!found) return failure(404);
    return {
      endpoint: found.endpoint,
      handle: async (received) => {
        const token = authorized(request);
        if (!token) return failure(401);
        const missing = (scopesNeeded[found.endpoint] ?? []).filter((scope) => !token.scopes.has(scope));
        if (missing.length > 0) return problem(403, 'Forbidden', `Missing required OAuth2 scopes: ${missing.join(', ')}`);
        return (await contractRefusal(received)) ?? found.handle(received);
      },
    };
  }

  return server;
}
