import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isMp4, videoFactsOf } from './mp4.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for TikTok as a publisher meets it: Login Kit's OAuth for the web, /v2/user/info/, and the Content
// Posting API's Direct Post of a video sent with FILE_UPLOAD in chunks, then polled to its end. TikTok publishes no
// machine-readable description, so every rule below links the reference page it follows; where a page is silent the
// comment says so and the fake does the least forgiving thing. What it cannot show of the real TikTok: the consent
// screen (everyone consents to every scope asked), the portal's registration of redirect URIs (any absolute URL is
// taken: the service under test listens on http), PKCE (web apps use none), the app audit itself (`unaudited` stands
// for it), moderation and the daily post caps (`creator.canPost` or a script stands in), webhooks, photos, the Upload
// (inbox) flow, PULL_FROM_URL, and real processing: a video is MP4 or not and long enough or not; its codec, frame rate
// (the guide's 23 to 60 FPS) and picture size (360 to 4096 px) are not checked, as the test videos are 10 fps and
// smaller (test/support/video-files.ts). Processing ends after `processingPolls` status fetches, not after a while: a
// post whose status nobody fetches is never made.

type TikTokEndpoint = 'authorize' | 'token' | 'userInfo' | 'creatorInfo' | 'init' | 'upload' | 'status';

type TikTokRequest = { method: string; path: string; query: URLSearchParams };

/** A scripted answer; `code` and `message` replace the error code and message TikTok's body carries for the status. */
type TikTokScriptedResponse = ScriptedResponse & { code?: string; message?: string };

type TikTokPublish = {
  publishId: string;
  /** The init's post_info, as sent. */
  postInfo: Record<string, unknown>;
  source: 'FILE_UPLOAD';
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  /** The bytes received so far, in order. */
  received: Buffer;
  status: 'PROCESSING_UPLOAD' | 'PUBLISH_COMPLETE' | 'FAILED';
  failReason: string | undefined;
  /** The public post id: set on PUBLISH_COMPLETE of a PUBLIC_TO_EVERYONE post only (see `statusFetch`). */
  postId: string | undefined;
  /** Status fetches still to answer PROCESSING_UPLOAD once the upload is whole. */
  pollsLeft: number;
  uploadUrl: string;
};

export type TikTokServer = ScriptedServer<TikTokEndpoint, TikTokScriptedResponse, TikTokRequest> & {
  /** `${url}/v2/auth/authorize/`: the consent page (www.tiktok.com/v2/auth/authorize/ in production). */
  authorizeUrl: string;
  /** The app: client key and secret. */
  client: { clientKey: string; clientSecret: string };
  account: { openId: string; displayName: string; username: string };
  /** What creator_info answers: privacy options, longest video (s), and whether comments/duets/stitches are off in the creator's settings. */
  creator: {
    privacyLevelOptions: string[];
    maxVideoPostDurationSec: number;
    commentDisabled: boolean;
    duetDisabled: boolean;
    stitchDisabled: boolean;
    canPost: true | 'spam_risk_too_many_posts' | 'spam_risk_user_banned_from_posting' | 'reached_active_user_cap';
  };
  /** An app that has not passed TikTok's audit: creator_info offers only SELF_ONLY, and any other privacy_level is refused with `unaudited_client_can_only_post_to_private_accounts`. */
  unaudited: boolean;
  /**
   * How many status fetches of a fully uploaded publish answer PROCESSING_UPLOAD before PUBLISH_COMPLETE (0: complete
   * as the last chunk lands). PROCESSING_DOWNLOAD is PULL_FROM_URL's, which the fake refuses.
   */
  processingPolls: number;
  /** The next publish that completes ends FAILED with this fail_reason instead (e.g. 'file_format_check_failed'), once. */
  failNextPublish: string | undefined;
  /**
   * The next status fetch answers as if the last chunk had not arrived yet (PROCESSING_UPLOAD, the bytes before it),
   * once: TikTok counts received bytes as it likes, and a client must not take a lagging count for a lost chunk.
   */
  statusLagsNextFetch: boolean;
  publishes: TikTokPublish[];
  /** Posts made (PUBLISH_COMPLETE): one per completed publish. */
  posts: Array<{ id: string; publishId: string; title: string; privacyLevel: string; video: Buffer }>;
  /** Total bytes received by upload PUTs (for "bytes sent at most size + one chunk" assertions). */
  bytesReceived: number;
  /** Answers the next upload PUT of a chunk only after dropping the connection (the chunk is kept), once per call. */
  dropAnswerOfNextChunk(): void;
  issueTokens(options?: { scopes?: readonly string[]; accessAgeMs?: number }): { accessToken: string; refreshToken: string };
  expire(accessToken: string): void;
};

type Scripted = TikTokScriptedResponse & { endpoint?: TikTokEndpoint };
type AccessToken = { value: string; expiresAt: number; scopes: Set<string> };
type RefreshToken = { scopes: string[]; expiresAt: number };
type Grant = { redirectUri: string; scopes: string[]; expiresAt: number };
type Upload = { publish: TikTokPublish; token: string; expiresAt: number };

// https://developers.tiktok.com/doc/scopes-overview: the scopes the endpoints here need, and the others a web app may
// ask for (the authorize page refuses any other name).
const knownScopes = ['user.info.basic', 'user.info.profile', 'user.info.stats', 'video.list', 'video.publish', 'video.upload'];

// https://developers.tiktok.com/doc/oauth-user-access-token-management: "It is valid for 24 hours after initial
// issuance" and the refresh token "for 365 days after the initial issuance".
const accessLifetimeSeconds = 86_400;
const refreshLifetimeSeconds = 31_536_000;
// Login Kit says nothing of a code's lifetime; RFC 6749 §4.1.2 recommends at most ten minutes.
const codeLifetimeMs = 10 * 60_000;

// https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide ("Chunk restrictions", "Video
// restrictions"). The guide does not say whether its MB are 10^6 or 2^20 bytes: the fake reads each bound the strict
// way, the lower ones (5 MB) as MiB, the upper ones (64 MB, 128 MB, 4 GB) as powers of ten.
const MiB = 1024 * 1024;
const minChunk = 5 * MiB;
const maxChunk = 64 * 1_000_000;
const maxLastChunk = 128 * 1_000_000;
const maxVideoSize = 4 * 1_000_000_000;
const maxChunks = 1000;
/**
 * The shortest video taken. The guide's video restrictions name no minimum, only maxima; the fake refuses under 3 s
 * (TikTok's app minimum, unconfirmed for the API) with duration_check_failed, the least forgiving reading.
 */
const minSeconds = 3;
/** https://developers.tiktok.com/doc/content-posting-api-reference-direct-post: "The `upload_url` is valid for one hour after issuance." */
const uploadLifetimeMs = 3_600_000;

// Requests per access token per minute, each on its endpoint's page: init 6 (Direct Post), creator_info 20 (Query
// Creator Info), status 30 (Get Post Status), user info 600 (the Server API's "Rate Limits on API Requests" page, linked
// from https://developers.tiktok.com/doc/tiktok-api-v2-error-handling: "a one minute sliding window"). The pages do not
// say whether a throttled request counts: here it does.
const perMinute: Partial<Record<TikTokEndpoint, number>> = { init: 6, creatorInfo: 20, status: 30, userInfo: 600 };

// https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info: each field and the scope it needs.
const userFieldScopes: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};

const privacyLevels = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
/** The Direct Post page's post_info and source_info fields: the fake refuses others (the page does not say TikTok does). */
const postInfoFields = [
  'title',
  'privacy_level',
  'disable_duet',
  'disable_stitch',
  'disable_comment',
  'video_cover_timestamp_ms',
  'brand_content_toggle',
  'brand_organic_toggle',
  'is_aigc',
];
const sourceInfoFields = ['source', 'video_url', 'video_size', 'chunk_size', 'total_chunk_count'];

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
/** A log id in TikTok's form: a timestamp and hex, e.g. 202210112248442CB9319E1FB30C1073F3. */
const logId = () => new Date().toISOString().replace(/\D/g, '').slice(0, 14) + randomBytes(10).toString('hex').toUpperCase();
const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

/**
 * The API's answer (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling): `data` and an `error` whose code
 * is `ok` on success. Errors carry an empty `data`.
 */
const apiAnswer = (data: unknown): Reply => ({ status: 200, body: { data, error: { code: 'ok', message: '', log_id: logId() } } });
const apiError = (status: number, code: string, message: string): Reply => ({ status, body: { data: {}, error: { code, message, log_id: logId() } } });
const invalidParam = (message: string) => apiError(400, 'invalid_param', message);

/**
 * https://developers.tiktok.com/doc/oauth-error-handling: a flat `{error, error_description, log_id}`. The token pages
 * show the body and no HTTP status; TikTok was reported answering a wrong client secret with a token answer that simply
 * lacked an access token (https://github.com/ComposioHQ/composio/pull/3980). The fake answers 200, the least
 * forgiving: a client must read `error`, whatever the status.
 */
const oauthError = (error: string, description: string, status = 200): Reply => ({ status, body: { error, error_description: description, log_id: logId() } });

const apiCodes: Record<number, string> = { 400: 'invalid_param', 401: 'access_token_invalid', 403: 'spam_risk_too_many_posts', 429: 'rate_limit_exceeded' };
const oauthCodes: Record<number, string> = { 400: 'invalid_request', 401: 'invalid_client', 503: 'temporarily_unavailable' };

/** A scripted failure, in the body of the endpoint it stands in for; `code` and `message` override the defaults. */
function failure(status: number, scripted: Scripted): Reply {
  const message = scripted.message ?? `The fake answered ${status}`;
  if (scripted.endpoint === 'authorize' || scripted.endpoint === 'token') {
    return oauthError(scripted.code ?? oauthCodes[status] ?? 'server_error', message, status);
  }
  // The upload's error bodies are not documented (the media transfer guide gives statuses only): TikTok's API body.
  const fallback = status >= 500 ? 'internal_error' : (apiCodes[status] ?? `http_${status}`);
  return apiError(status, scripted.code ?? fallback, message);
}

/** Whether the Content-Type is the media type asked, with `charset=UTF-8` when `charset` is required. */
function hasContentType(request: IncomingMessage, mediaType: string, charset = false): boolean {
  const [type, ...parameters] = (request.headers['content-type'] ?? '').split(';').map((part) => part.trim().toLowerCase());
  return type === mediaType && (!charset || parameters.includes('charset=utf-8'));
}

/**
 * The JSON object a Content Posting request carries, or its refusal. Each Direct Post page requires the header
 * `Content-Type: application/json; charset=UTF-8` (though some of TikTok's own curl examples omit the charset): the fake
 * requires it whole.
 */
function jsonRequest(received: Received, bodyRequired = true): { json: Record<string, unknown> } | { refusal: Reply } {
  if (!hasContentType(received.request, 'application/json', true)) return { refusal: invalidParam('Content-Type must be application/json; charset=UTF-8.') };
  if (received.body.length === 0 && !bodyRequired) return { json: {} };
  try {
    const json = objectOf(JSON.parse(received.body.toString('utf8')));
    return json ? { json } : { refusal: invalidParam('The body must be a JSON object.') };
  } catch {
    return { refusal: invalidParam('The body is not valid JSON.') };
  }
}

/** Why the init's chunking breaks the media transfer guide's chunk restrictions, or undefined. */
function chunkRefusal(videoSize: unknown, chunkSize: unknown, count: unknown): string | undefined {
  if (!isCount(videoSize) || videoSize <= 0) return 'source_info.video_size must be a positive integer.';
  if (!isCount(chunkSize) || chunkSize <= 0) return 'source_info.chunk_size must be a positive integer.';
  if (!isCount(count) || count < 1) return 'source_info.total_chunk_count must be a positive integer.';
  if (videoSize > maxVideoSize) return 'A video is at most 4 GB.';
  // "Videos with a total size less than 5 MB must be uploaded as a whole, with chunk_size equal to the entire video's byte size."
  if (videoSize < minChunk) {
    return chunkSize === videoSize && count === 1 ? undefined : 'A video under 5 MB is uploaded whole: chunk_size = video_size, total_chunk_count = 1.';
  }
  // "The value of total_chunk_count should be equal to video_size divided by chunk_size, rounded down."
  const expected = Math.floor(videoSize / chunkSize);
  if (count !== expected) return `total_chunk_count must be video_size / chunk_size rounded down: ${expected}.`;
  if (count > maxChunks) return 'There must be at most 1000 chunks.';
  // One chunk is the whole video, which "greater than 64 MB must be uploaded in multiple chunks". The guide does not
  // say whether a single chunk may be declared smaller than the video (the rest trailing): the fake wants chunk_size =
  // video_size, as the guide's whole-upload example sends.
  if (count === 1)
    return chunkSize === videoSize && videoSize <= maxChunk ? undefined : 'One chunk is the whole video, at most 64 MB: chunk_size = video_size.';
  // "Each chunk must be at least 5 MB but no greater than 64 MB, except for the final chunk, which can be greater
  // than chunk_size (up to 128 MB) to accommodate any trailing bytes."
  if (chunkSize < minChunk || chunkSize > maxChunk) return 'chunk_size must be between 5 MB and 64 MB.';
  if (videoSize - (count - 1) * chunkSize > maxLastChunk) return 'The final chunk (chunk_size and the trailing bytes) must be at most 128 MB.';
  return undefined;
}

/** The size of chunk `index` (from 0): chunk_size, the last one with the trailing bytes. */
const chunkLength = (publish: TikTokPublish, index: number) =>
  index < publish.totalChunkCount - 1 ? publish.chunkSize : publish.videoSize - (publish.totalChunkCount - 1) * publish.chunkSize;

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startTikTokServer(): Promise<TikTokServer> {
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  const refreshTokens = new Map<string, RefreshToken>();
  const uploads = new Map<string, Upload>();
  const recentCalls = new Map<string, number[]>();
  let dropsPending = 0;

  const scripted = await startScriptedServer<TikTokEndpoint, Scripted, TikTokRequest>({
    name: 'tiktok',
    // TikTok's pages name no rate-limit header: a scripted reset goes out as Retry-After, the only hint it could give.
    rateLimitResetHeader: 'retry-after',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams }),
    route,
    failure,
  });
  const server: TikTokServer = {
    ...scripted,
    // The scripted answers remember their endpoint, so that each fails in its endpoint's body (OAuth's or the API's).
    script: (endpoint, responses) =>
      scripted.script(
        endpoint,
        responses.map((response) => ({ ...response, endpoint })),
      ),
    authorizeUrl: `${scripted.url}/v2/auth/authorize/`,
    client: { clientKey: `aw${randomBytes(8).toString('hex')}`, clientSecret: secret(24) },
    account: { openId: `-000${randomUUID().replace(/-/g, '').slice(0, 28)}`, displayName: 'Alice Makes Things', username: 'alicemakesthings' },
    // The Query Creator Info page's options for a public account, and its example's longest video.
    creator: {
      privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      maxVideoPostDurationSec: 300,
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: false,
      canPost: true,
    },
    unaudited: false,
    processingPolls: 1,
    failNextPublish: undefined,
    statusLagsNextFetch: false,
    publishes: [],
    posts: [],
    bytesReceived: 0,
    dropAnswerOfNextChunk: () => {
      dropsPending += 1;
    },
    issueTokens: ({ scopes = ['user.info.basic', 'video.publish'], accessAgeMs = 0 } = {}) => {
      const refreshToken = `rft.${secret(36)}`;
      refreshTokens.set(refreshToken, { scopes: [...scopes], expiresAt: Date.now() + refreshLifetimeSeconds * 1000 });
      return { accessToken: issueAccessToken(scopes, Date.now() - accessAgeMs), refreshToken };
    },
    expire: (accessToken) => {
      const found = accessTokens.get(accessToken);
      if (found) found.expiresAt = Date.now() - 1;
    },
  };

  /** An access token (`act.` as TikTok's examples), issued at `issuedAt`, good for 24 hours from then. */
  function issueAccessToken(scopes: readonly string[], issuedAt = Date.now()): string {
    const value = `act.${secret(36)}`;
    accessTokens.set(value, { value, expiresAt: issuedAt + accessLifetimeSeconds * 1000, scopes: new Set(scopes) });
    return value;
  }

  /**
   * https://developers.tiktok.com/doc/login-kit-web: the person consents and TikTok redirects back with `code`,
   * `scopes` (comma-separated, as asked) and `state`; a request it cannot take otherwise comes back with `error` and
   * `error_description`. An unknown client or a redirect_uri it cannot go back to gets TikTok's own error page (a 400
   * here). Codes carry `*` and `!`, as TikTok's do, which the token page says to send "URL decoded": a client that
   * sends a code encoded twice fails.
   */
  function authorize({ url }: Received): Reply {
    const query = url.searchParams;
    if (query.get('client_key') !== server.client.clientKey) return oauthError('invalid_client', 'client_key is unknown.', 400);
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!URL.canParse(redirectUri) || !/^https?:$/.test(new URL(redirectUri).protocol)) return oauthError('invalid_request', 'redirect_uri is invalid.', 400);
    const back = new URL(redirectUri);
    const scopes = (query.get('scope') ?? '').split(',').filter(Boolean);
    const fail = (error: string, description: string) => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
    };
    if (query.get('response_type') !== 'code') fail('unsupported_response_type', 'response_type must be code.');
    else if (scopes.length === 0 || scopes.some((asked) => !knownScopes.includes(asked))) fail('invalid_scope', `Invalid scope: ${query.get('scope') ?? ''}`);
    else {
      const code = `${secret(48)}*0!${randomBytes(2).readUInt16BE(0)}.va`;
      grants.set(code, { redirectUri, scopes, expiresAt: Date.now() + codeLifetimeMs });
      back.searchParams.set('code', code);
      back.searchParams.set('scopes', scopes.join(','));
    }
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { status: 302, body: {}, headers: { location: back.toString() } };
  }

  /**
   * POST /v2/oauth/token/ (https://developers.tiktok.com/doc/oauth-user-access-token-management): a form with the
   * client's key and secret. A code is good once, for the redirect_uri it was asked with. Refreshing answers "a
   * refresh_token [that] may be different than the one passed": the fake always rotates it and refuses the old one,
   * and the new one lasts no longer than the old (it was "valid for 365 days after the initial issuance").
   */
  function token(received: Received): Reply {
    if (!hasContentType(received.request, 'application/x-www-form-urlencoded')) {
      return oauthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(received.body.toString('utf8'));
    if (form.get('client_key') !== server.client.clientKey || form.get('client_secret') !== server.client.clientSecret) {
      return oauthError('invalid_client', 'Client key or secret is incorrect.');
    }
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return exchangeCode(form);
    if (grantType === 'refresh_token') return refresh(form);
    return oauthError('unsupported_grant_type', `The fake grants authorization_code and refresh_token, not ${grantType ?? '(none)'}.`);
  }

  function exchangeCode(form: URLSearchParams): Reply {
    const code = form.get('code') ?? '';
    const grant = grants.get(code);
    grants.delete(code);
    if (!grant || grant.expiresAt <= Date.now()) return oauthError('invalid_grant', 'Authorization code is expired.');
    // The page's own example of this refusal.
    if (form.get('redirect_uri') !== grant.redirectUri) return oauthError('invalid_request', 'Redirect_uri is not matched with the uri when requesting code.');
    const refreshToken = `rft.${secret(36)}`;
    refreshTokens.set(refreshToken, { scopes: grant.scopes, expiresAt: Date.now() + refreshLifetimeSeconds * 1000 });
    return tokens(grant.scopes, refreshToken);
  }

  function refresh(form: URLSearchParams): Reply {
    const old = form.get('refresh_token') ?? '';
    const found = refreshTokens.get(old);
    if (!found || found.expiresAt <= Date.now()) return oauthError('invalid_grant', 'Refresh token is invalid or expired.');
    refreshTokens.delete(old);
    const refreshToken = `rft.${secret(36)}`;
    refreshTokens.set(refreshToken, found);
    return tokens(found.scopes, refreshToken);
  }

  function tokens(scopes: string[], refreshToken: string): Reply {
    const { expiresAt } = refreshTokens.get(refreshToken)!;
    return {
      status: 200,
      body: {
        access_token: issueAccessToken(scopes),
        expires_in: accessLifetimeSeconds,
        open_id: server.account.openId,
        refresh_expires_in: Math.floor((expiresAt - Date.now()) / 1000),
        refresh_token: refreshToken,
        scope: scopes.join(','),
        token_type: 'Bearer',
      },
    };
  }

  /**
   * GET /v2/user/info/ (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info): the `fields` asked, each
   * needing its scope; a field the token's scopes do not cover is refused with scope_permission_missed, which the error
   * page answers 400 ("some fields need additional scopes").
   */
  function userInfo({ url }: Received, token: AccessToken): Reply {
    const fields = (url.searchParams.get('fields') ?? '').split(',').filter(Boolean);
    // The error page spells this one `invalid_params`, where the Content Posting pages have `invalid_param`.
    if (fields.length === 0) return apiError(400, 'invalid_params', 'fields is required.');
    const unknown = fields.filter((field) => !(field in userFieldScopes));
    if (unknown.length > 0) return apiError(400, 'invalid_params', `Unknown fields: ${unknown.join(',')}`);
    const uncovered = fields.filter((field) => !token.scopes.has(userFieldScopes[field]!));
    if (uncovered.length > 0) return apiError(400, 'scope_permission_missed', `These fields need additional scopes: ${uncovered.join(',')}`);
    const { openId, displayName, username } = server.account;
    const all: Record<string, unknown> = {
      open_id: openId,
      union_id: `union-${openId}`,
      avatar_url: `https://p16-sign.tiktokcdn-us.com/${openId}~c5_168x168.jpeg`,
      avatar_url_100: `https://p16-sign.tiktokcdn-us.com/${openId}~c5_100x100.jpeg`,
      avatar_large_url: `https://p16-sign.tiktokcdn-us.com/${openId}~c5_1080x1080.jpeg`,
      display_name: displayName,
      bio_description: '',
      profile_deep_link: `https://vm.tiktok.com/${username}`,
      is_verified: false,
      username,
      follower_count: 0,
      following_count: 0,
      likes_count: 0,
      video_count: server.posts.length,
    };
    return apiAnswer({ user: Object.fromEntries(fields.map((field) => [field, all[field]])) });
  }

  /**
   * POST /v2/post/publish/creator_info/query/ (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info).
   * A creator who may not post now gets the reason as the error code with HTTP 200: the page's error table says
   * "200 (intentional)" for spam_risk_too_many_posts, spam_risk_user_banned_from_posting and reached_active_user_cap.
   */
  function creatorInfo(received: Received): Reply {
    const parsed = jsonRequest(received, false);
    if ('refusal' in parsed) return parsed.refusal;
    const { creator, account } = server;
    if (creator.canPost !== true) return apiError(200, creator.canPost, 'The creator cannot post now.');
    return apiAnswer({
      creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/${account.openId}~c5_168x168.jpeg`,
      creator_username: account.username,
      creator_nickname: account.displayName,
      privacy_level_options: server.unaudited ? ['SELF_ONLY'] : [...creator.privacyLevelOptions],
      comment_disabled: creator.commentDisabled,
      duet_disabled: creator.duetDisabled,
      stitch_disabled: creator.stitchDisabled,
      max_video_post_duration_sec: creator.maxVideoPostDurationSec,
    });
  }

  /** Why post_info breaks the Direct Post page's schema or the creator's settings, or undefined. */
  function postInfoRefusal(postInfo: Record<string, unknown>): string | undefined {
    const unknown = Object.keys(postInfo).filter((field) => !postInfoFields.includes(field));
    if (unknown.length > 0) return `Unknown post_info fields: ${unknown.join(', ')}`;
    const { title } = postInfo;
    // "The maximum length is 2200 in UTF-16 runes": a JavaScript string's length counts UTF-16 code units.
    if (title !== undefined && (typeof title !== 'string' || title.length > 2200)) return 'post_info.title must be a string of at most 2200 UTF-16 runes.';
    const booleans = ['disable_duet', 'disable_stitch', 'disable_comment', 'brand_content_toggle', 'brand_organic_toggle', 'is_aigc'];
    const notBoolean = booleans.filter((field) => postInfo[field] !== undefined && typeof postInfo[field] !== 'boolean');
    if (notBoolean.length > 0) return `These post_info fields must be booleans: ${notBoolean.join(', ')}`;
    // The page marks brand_content_toggle required (though its own example leaves it out): the fake requires it.
    if (postInfo.brand_content_toggle === undefined) return 'post_info.brand_content_toggle is required.';
    // int32; "if ... the specified value is invalid, the cover is set to the first frame": only its type is refused.
    const cover = postInfo.video_cover_timestamp_ms;
    if (cover !== undefined && (!Number.isInteger(cover) || Math.abs(cover as number) > 2 ** 31 - 1))
      return 'post_info.video_cover_timestamp_ms must be an int32.';
    // https://developers.tiktok.com/doc/content-sharing-guidelines: an interaction the creator turned off in their
    // settings is shown off and cannot be turned on. The API page says TikTok's server disables it anyway; whether it
    // refuses a post that asks for it is not said: the fake refuses.
    const interactions = [
      ['disable_comment', server.creator.commentDisabled],
      ['disable_duet', server.creator.duetDisabled],
      ['disable_stitch', server.creator.stitchDisabled],
    ] as const;
    const forced = interactions.filter(([field, off]) => off && postInfo[field] !== true).map(([field]) => field);
    if (forced.length > 0) return `The creator has turned these off: ${forced.join(', ')} must be true.`;
    // The UX guidelines again: branded content cannot be private ("Only me"). The API's answer to it is not
    // documented: the fake refuses.
    if (postInfo.brand_content_toggle === true && postInfo.privacy_level === 'SELF_ONLY') return 'Branded content cannot be posted SELF_ONLY.';
    return undefined;
  }

  /**
   * POST /v2/post/publish/video/init/ (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post):
   * post_info and source_info, checked in that page's terms; the answer's upload_url points at the fake itself. The
   * daily caps and the audit block the init with 403 (the page's error table); a privacy_level "not specified or not
   * among the options" is privacy_level_option_mismatch.
   */
  function init(received: Received): Reply {
    const parsed = jsonRequest(received);
    if ('refusal' in parsed) return parsed.refusal;
    const body = parsed.json;
    const postInfo = objectOf(body.post_info);
    const sourceInfo = objectOf(body.source_info);
    if (!postInfo || !sourceInfo) return invalidParam('post_info and source_info are required.');
    const extra = [
      ...Object.keys(body).filter((field) => field !== 'post_info' && field !== 'source_info'),
      ...Object.keys(sourceInfo).filter((field) => !sourceInfoFields.includes(field)),
    ];
    if (extra.length > 0) return invalidParam(`Unknown fields: ${extra.join(', ')}`);
    if (server.creator.canPost !== true) return apiError(403, server.creator.canPost, 'The creator cannot post now.');
    // The fake has verified no URL prefix, so PULL_FROM_URL gets the page's refusal for an unverified one.
    if (sourceInfo.source === 'PULL_FROM_URL') return apiError(403, 'url_ownership_unverified', 'The fake verifies no URL: send the video with FILE_UPLOAD.');
    if (sourceInfo.source !== 'FILE_UPLOAD') return invalidParam('source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
    const chunking = chunkRefusal(sourceInfo.video_size, sourceInfo.chunk_size, sourceInfo.total_chunk_count);
    if (chunking) return invalidParam(chunking);
    const refusal = postInfoRefusal(postInfo);
    if (refusal) return invalidParam(refusal);
    const privacy = postInfo.privacy_level;
    if (server.unaudited && typeof privacy === 'string' && privacyLevels.includes(privacy) && privacy !== 'SELF_ONLY') {
      return apiError(403, 'unaudited_client_can_only_post_to_private_accounts', 'Unaudited clients can only post to a private account.');
    }
    const offered = server.unaudited ? ['SELF_ONLY'] : server.creator.privacyLevelOptions;
    if (typeof privacy !== 'string' || !offered.includes(privacy)) {
      return apiError(403, 'privacy_level_option_mismatch', 'privacy_level is not specified or not among the privacy_level_options.');
    }
    return apiAnswer(startPublish(postInfo, sourceInfo));
  }

  function startPublish(postInfo: Record<string, unknown>, sourceInfo: Record<string, unknown>) {
    const publishId = `v_pub_file~v2-1.${randomBytes(8).readBigUInt64BE(0)}`;
    const uploadId = String(randomBytes(6).readUIntBE(0, 6));
    const uploadToken = secret(18);
    const publish: TikTokPublish = {
      publishId,
      postInfo,
      source: 'FILE_UPLOAD',
      videoSize: sourceInfo.video_size as number,
      chunkSize: sourceInfo.chunk_size as number,
      totalChunkCount: sourceInfo.total_chunk_count as number,
      received: Buffer.alloc(0),
      status: 'PROCESSING_UPLOAD',
      failReason: undefined,
      postId: undefined,
      pollsLeft: 0,
      uploadUrl: `${server.url}/upload/?upload_id=${uploadId}&upload_token=${uploadToken}`,
    };
    server.publishes.push(publish);
    uploads.set(uploadId, { publish, token: uploadToken, expiresAt: Date.now() + uploadLifetimeMs });
    return { publish_id: publishId, upload_url: publish.uploadUrl };
  }

  /**
   * PUT {upload_url} (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide, "Media transfer
   * HTTP schema" and "Response"): each chunk with its Content-Type, Content-Length and Content-Range; 206 while chunks
   * remain, 201 once all are in, each answer's Content-Range saying what was received. The guide's statuses: 400 for
   * malformed headers or a Content-Length that is not the body's, 403 once the upload_url has expired, 404 for an
   * upload it cannot find, 416 when "Content-Range does not reflect the actual upload progress". "File chunks must be
   * uploaded sequentially": a chunk that does not start at the bytes received so far is 416, and so is one already
   * received (the guide is silent on a repeat; the fake refuses). A chunk must be the size the init announced. The
   * URL carries its own authority: no access token is asked for.
   */
  function uploadChunk(received: Received): Reply {
    server.bytesReceived += received.body.length;
    const query = received.url.searchParams;
    const upload = uploads.get(query.get('upload_id') ?? '');
    if (!upload || upload.token !== query.get('upload_token')) return apiError(404, 'invalid_param', 'No upload task matches this upload_url.');
    if (upload.expiresAt <= Date.now()) return apiError(403, 'invalid_param', 'The upload_url has expired.');
    const { publish } = upload;
    const { request, body } = received;
    // TikTok takes video/mp4, video/quicktime and video/webm; the fake can check MP4s only, so it takes MP4 only.
    if (!hasContentType(request, 'video/mp4')) return invalidParam('The fake takes Content-Type: video/mp4 only.');
    if (Number(request.headers['content-length']) !== body.length) return invalidParam('Content-Length must be the byte size of this chunk.');
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(request.headers['content-range'] ?? '');
    if (!range) return invalidParam('Content-Range must be bytes {FIRST_BYTE}-{LAST_BYTE}/{TOTAL_BYTE_LENGTH}.');
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (total !== publish.videoSize || last < first || last - first + 1 !== body.length) {
      return invalidParam(`Content-Range ${range[0]} does not match the ${body.length} bytes sent of a ${publish.videoSize}-byte video.`);
    }
    if (first !== publish.received.length) {
      return { ...apiError(416, 'invalid_param', `The upload is at byte ${publish.received.length}.`), headers: progressHeader(publish) };
    }
    const index = Math.floor(first / publish.chunkSize);
    if (body.length !== chunkLength(publish, index)) return invalidParam(`Chunk ${index + 1} must be ${chunkLength(publish, index)} bytes.`);

    publish.received = Buffer.concat([publish.received, body]);
    if (publish.received.length === publish.videoSize) finishUpload(publish);
    if (dropsPending > 0) {
      dropsPending -= 1;
      // The chunk is kept; its answer never comes.
      request.socket.destroy();
    }
    const done = publish.received.length === publish.videoSize;
    return { status: done ? 201 : 206, body: undefined, headers: progressHeader(publish) };
  }

  /** "The response header includes ... Content-Range: bytes 0-{UPLOADED_BYTES}/{TOTAL_BYTE_LENGTH}", the last byte's index here. */
  const progressHeader = (publish: TikTokPublish): Record<string, string> =>
    publish.received.length > 0 ? { 'content-range': `bytes 0-${publish.received.length - 1}/${publish.videoSize}` } : {};

  /**
   * The checks TikTok's processing makes (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status,
   * "Fail reasons"): no MP4 is file_format_check_failed; longer than the creator may post, or shorter than 3 s, is
   * duration_check_failed ("Video does not meet our duration restrictions"). Otherwise it processes for
   * `processingPolls` status fetches.
   */
  function finishUpload(publish: TikTokPublish) {
    const facts = isMp4(publish.received) ? videoFactsOf(publish.received) : undefined;
    if (!facts) return fail(publish, 'file_format_check_failed');
    if (facts.seconds > server.creator.maxVideoPostDurationSec || facts.seconds < minSeconds) return fail(publish, 'duration_check_failed');
    publish.pollsLeft = server.processingPolls;
    if (publish.pollsLeft === 0) complete(publish);
  }

  function fail(publish: TikTokPublish, reason: string) {
    publish.status = 'FAILED';
    publish.failReason = reason;
  }

  /**
   * The post is made. "If the post was created for public viewership, it must undergo TikTok's moderation process ...
   * developers are not provided with the post_id until this process is complete" and publicaly_available_post_id is
   * "returned only if the post is published for public viewership": friends-only and follower-only posts are not
   * public viewing, so only PUBLIC_TO_EVERYONE gets an id (moderation is instant here).
   */
  function complete(publish: TikTokPublish) {
    if (server.failNextPublish !== undefined) {
      fail(publish, server.failNextPublish);
      server.failNextPublish = undefined;
      return;
    }
    publish.status = 'PUBLISH_COMPLETE';
    // The page types the ids list<int64>, and TikTok's have 19 digits, past JavaScript's exact integers: a client
    // must not read them through JSON.parse as numbers. The fake's answers go through JSON.stringify, which cannot
    // write such a number, so its ids stay under 2^53.
    const id = String(7_000_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000_000_000));
    const privacyLevel = publish.postInfo.privacy_level as string;
    if (privacyLevel === 'PUBLIC_TO_EVERYONE') publish.postId = id;
    const title = typeof publish.postInfo.title === 'string' ? publish.postInfo.title : '';
    server.posts.push({ id, publishId: publish.publishId, title, privacyLevel, video: publish.received });
  }

  /**
   * POST /v2/post/publish/status/fetch/ (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status):
   * PROCESSING_UPLOAD ("Only available for FILE_UPLOAD") while chunks are missing and while processing, then
   * PUBLISH_COMPLETE or FAILED with its fail_reason. An unknown publish_id is the page's 400 invalid_publish_id. The
   * page is silent on an upload left unfinished past its hour: it stays PROCESSING_UPLOAD here.
   */
  function statusFetch(received: Received): Reply {
    const parsed = jsonRequest(received);
    if ('refusal' in parsed) return parsed.refusal;
    const publish = server.publishes.find((candidate) => candidate.publishId === parsed.json.publish_id);
    if (!publish) return apiError(400, 'invalid_publish_id', 'The publish_id does not exist.');
    if (server.statusLagsNextFetch) {
      server.statusLagsNextFetch = false;
      const beforeLastChunk = Math.min(publish.received.length, publish.chunkSize * (publish.totalChunkCount - 1));
      return apiAnswer({ status: 'PROCESSING_UPLOAD', publicaly_available_post_id: [], uploaded_bytes: beforeLastChunk });
    }
    const uploaded = publish.received.length === publish.videoSize;
    if (uploaded && publish.status === 'PROCESSING_UPLOAD') {
      if (publish.pollsLeft > 0) publish.pollsLeft -= 1;
      else complete(publish);
    }
    return apiAnswer({
      status: publish.status,
      ...(publish.status === 'FAILED' ? { fail_reason: publish.failReason } : {}),
      publicaly_available_post_id: publish.postId ? [Number(publish.postId)] : [],
      uploaded_bytes: publish.received.length,
    });
  }

  function authorized(request: IncomingMessage): AccessToken | undefined {
    const header = request.headers.authorization ?? '';
    const found = header.startsWith('Bearer ') ? accessTokens.get(header.slice('Bearer '.length)) : undefined;
    return found && found.expiresAt > Date.now() ? found : undefined;
  }

  /** Whether this call is one too many in the sliding minute of its endpoint and token. */
  function overLimit(endpoint: TikTokEndpoint, token: AccessToken): boolean {
    const limit = perMinute[endpoint];
    if (limit === undefined) return false;
    const key = `${endpoint} ${token.value}`;
    const now = Date.now();
    const calls = [...(recentCalls.get(key) ?? []).filter((at) => at > now - 60_000), now];
    recentCalls.set(key, calls);
    return calls.length > limit;
  }

  /**
   * An API call: a live Bearer token (401 access_token_invalid), one of the endpoint's scopes (401
   * scope_not_authorized), within its rate limit (429 rate_limit_exceeded), as each endpoint's error table says.
   */
  function apiRoute(endpoint: TikTokEndpoint, scopes: string[], handle: (received: Received, token: AccessToken) => Reply): Route<TikTokEndpoint> {
    return {
      endpoint,
      handle: (received) => {
        const token = authorized(received.request);
        if (!token) return apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
        if (!scopes.some((scope) => token.scopes.has(scope))) {
          return apiError(401, 'scope_not_authorized', `The user did not authorize the scope required: ${scopes.join(' or ')}.`);
        }
        if (overLimit(endpoint, token)) return apiError(429, 'rate_limit_exceeded', 'The API rate limit was exceeded.');
        return handle(received, token);
      },
    };
  }

  // Paths as TikTok spells them, with the trailing slash: without it, 404.
  function route(request: IncomingMessage, url: URL): Route<TikTokEndpoint> | Reply {
    const method = request.method ?? 'GET';
    const at = `${method} ${url.pathname}`;
    if (at === 'GET /v2/auth/authorize/') return { endpoint: 'authorize', handle: authorize };
    if (at === 'POST /v2/oauth/token/') return { endpoint: 'token', handle: token };
    if (at === 'GET /v2/user/info/') return apiRoute('userInfo', ['user.info.basic'], userInfo);
    if (at === 'POST /v2/post/publish/creator_info/query/') return apiRoute('creatorInfo', ['video.publish'], creatorInfo);
    if (at === 'POST /v2/post/publish/video/init/') return apiRoute('init', ['video.publish'], init);
    if (at === 'POST /v2/post/publish/status/fetch/') return apiRoute('status', ['video.upload', 'video.publish'], statusFetch);
    if (at === 'PUT /upload/') return { endpoint: 'upload', handle: uploadChunk };
    return apiError(404, 'not_found', `The fake has no ${at}.`);
  }

  return server;
}
