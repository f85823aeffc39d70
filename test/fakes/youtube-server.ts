import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { loadDiscoveryContract } from './discovery-contract.ts';
import { isMp4 } from './mp4.ts';
import type { ApiContract } from './openapi-contract.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for YouTube as a video uploader meets it: Google's OAuth 2.0 web server flow
// (https://developers.google.com/identity/protocols/oauth2/web-server) and the part of the YouTube Data API v3 that
// uploads a video with the resumable protocol and watches it being processed. Each endpoint links the page that
// documents it; every API request is checked against Google's discovery document
// (test/fixtures/platform-apis/youtube). What it cannot show of the real YouTube: the consent screen (it answers as a
// person who consents, or refuses when told), Google's app verification and the YouTube API audit (`unverifiedApp`
// only locks uploads private), the real quota buckets (one daily counter here, see `quotaCost`), per-minute rate
// limits and the per-channel daily upload limit (a test scripts a 429 or 403), real processing (any bytes that open
// like an MP4 are "processed" after `videoProcessingChecks` checks; codecs, length and resolution are not looked
// at), thumbnails, and whether YouTube files a video as a Short.

type YouTubeEndpoint = 'authorize' | 'token' | 'channels' | 'videos_insert' | 'upload_session' | 'videos_list' | 'playlist_items';

type YouTubeRequest = { method: string; path: string; headers: IncomingHttpHeaders; query: URLSearchParams; bytes: number };

type YouTubeVideo = {
  id: string;
  channelId: string;
  title: string;
  description: string;
  privacyStatus: 'public' | 'unlisted' | 'private';
  madeForKids: boolean;
  bytes: Buffer;
  publishedAt: Date;
  uploadStatus: 'uploaded' | 'processed' | 'failed' | 'rejected';
  checksLeft: number;
  /** Why processing failed (the Video resource's `status.failureReason`). */
  failureReason?: 'invalidFile';
};

/** A resumable upload: what the initiating request announced, and the bytes received so far, in order. */
type YouTubeSession = {
  id: string;
  totalBytes: number;
  received: Buffer[];
  receivedBytes: number;
  /** The video resource the initiating request sent, its parts not named in `part` left out (they set nothing). */
  metadata: unknown;
  /** The parts the initiating request named: the answer that completes the upload has these. */
  parts: string[];
  videoId: string | undefined;
  expired: boolean;
};

export type YouTubeServer = ScriptedServer<YouTubeEndpoint, ScriptedResponse, YouTubeRequest> & {
  /** The API's base (YOUTUBE_API_URL): `${url}/youtube/v3/...`, `${url}/upload/youtube/v3/videos`. */
  url: string;
  /** Google's consent page (YOUTUBE_AUTHORIZE_URL): `${url}/o/oauth2/v2/auth`. */
  authorizeUrl: string;
  /** Google's token endpoint (YOUTUBE_TOKEN_URL): `${url}/token`. */
  tokenUrl: string;
  client: { clientId: string; clientSecret: string };
  channel: { id: string; title: string; customUrl: string; uploadsPlaylistId: string };
  /** The Google account has no YouTube channel (channels.list mine=true answers no items). */
  noChannel: boolean;
  /** How the person answers the consent screen: `consent` (redirect with a code) or `deny` (access_denied). */
  decision: 'consent' | 'deny';
  accessTokenLifetimeSeconds: number;
  videos: YouTubeVideo[];
  sessions: Map<string, YouTubeSession>;
  /** How many videos.list answers say uploadStatus 'uploaded' (processing) before 'processed'. */
  videoProcessingChecks: number;
  /** Quota units used today and the daily limit (10,000 by default); what each call costs: `quotaCost` below. */
  quotaUsed: number;
  quotaLimit: number;
  /**
   * The app is unverified: uploaded videos are locked private whatever privacyStatus asked
   * (https://developers.google.com/youtube/v3/docs/videos/insert, "unverified API projects").
   */
  unverifiedApp: boolean;
  /**
   * Hold the PUT carrying bytes from this offset on (never answer, keep the socket open until close), to simulate a
   * worker killed mid-upload; undefined: off. Used once: it is off again after it holds a PUT.
   */
  holdChunkFrom: number | undefined;
  /** The next session PUT that completes the upload creates the video, then the connection is dropped without an answer. */
  dropAnswerOfCompletingPut: boolean;
  /** Every byte the session PUTs carried, resent ones included. */
  bytesReceivedTotal(): number;
  /** The refresh token issued last; undefined before the first offline grant. Google does not rotate them. */
  currentRefreshToken(): string | undefined;
  /** Grants an access token without the flow (adapter tests), with youtube.upload and youtube.readonly unless told which. */
  issueAccessToken(lifetimeSeconds?: number, scopes?: string[]): string;
};

type ApiEndpoint = Exclude<YouTubeEndpoint, 'authorize' | 'token' | 'upload_session'>;
type AccessToken = { expiresAt: number; scopes: Set<string> };
type Grant = { redirectUri: string; challenge: string; scopes: string[]; offline: boolean; promptConsent: boolean };

const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;
const uploadScope = scope('youtube.upload');
const defaultScopes = [uploadScope, scope('youtube.readonly')];
// Scopes a sign-in may add to YouTube's own (https://developers.google.com/identity/protocols/oauth2/scopes).
const identityScopes = ['openid', 'email', 'profile', scope('userinfo.email'), scope('userinfo.profile')];
/** Google's resumable protocol moves bytes in units of 256 KiB: every chunk but the last is a multiple. */
const chunkUnit = 256 * 1024;

/**
 * Each endpoint's method in the discovery document (whose `scopes` any one of which the token must hold), the schema
 * whose top-level properties are the `part` names it takes, and what a call costs here.
 *
 * https://developers.google.com/youtube/v3/determine_quota_cost says videos.insert costs 1,600 units of the 10,000 a
 * day (as does the videos.insert page); its newer copy, https://developers.google.com/youtube/data/determine_quota_cost,
 * gives videos.insert a bucket of its own, 100 calls a day at 1 unit each, beside 10,000 units for the rest. The fake
 * keeps one counter, so it charges 100 units: 100 uploads fill the default 10,000, as the newer bucket allows, where
 * 1,600 would stop a connector after 6. Lists cost 1, as both pages say.
 */
const operations: Record<ApiEndpoint, { resource: string; method: string; schema: string; quotaCost: number }> = {
  channels: { resource: 'channels', method: 'list', schema: 'Channel', quotaCost: 1 },
  videos_insert: { resource: 'videos', method: 'insert', schema: 'Video', quotaCost: 100 },
  videos_list: { resource: 'videos', method: 'list', schema: 'Video', quotaCost: 1 },
  playlist_items: { resource: 'playlistItems', method: 'list', schema: 'PlaylistItem', quotaCost: 1 },
};

type Discovery = {
  resources: Record<string, { methods: Record<string, { scopes?: string[] }> }>;
  schemas: Record<string, { properties?: Record<string, unknown> }>;
  auth: { oauth2: { scopes: Record<string, unknown> } };
};

// Google's discovery document of the API, read once per process: every API request is checked against it, and the
// scopes and parts each method takes come from it.
let described:
  { contract: ApiContract; youtubeScopes: string[]; scopesOf: (endpoint: ApiEndpoint) => string[]; partsOf: (endpoint: ApiEndpoint) => string[] } | undefined;
function description() {
  if (described) return described;
  const file = new URL('../fixtures/platform-apis/youtube/youtube.v3.discovery.json', import.meta.url).pathname;
  const document = JSON.parse(readFileSync(file, 'utf8')) as Discovery;
  described = {
    contract: loadDiscoveryContract(file),
    youtubeScopes: Object.keys(document.auth.oauth2.scopes),
    scopesOf: (endpoint) => {
      const { resource, method } = operations[endpoint];
      return document.resources[resource]?.methods[method]?.scopes ?? [];
    },
    partsOf: (endpoint) => Object.keys(document.schemas[operations[endpoint].schema]?.properties ?? {}).filter((name) => name !== 'kind' && name !== 'etag'),
  };
  return described;
}

/** Google's JSON error (https://developers.google.com/youtube/v3/docs/errors): its `errors` name the reason. */
function googleError(code: number, message: string, reason: string, extra: { domain?: string; status?: string; location?: string } = {}): Reply {
  const { domain = 'global', status, location } = extra;
  const detail = { message, domain, reason, ...(location ? { location, locationType: 'parameter' } : {}) };
  return { status: code, body: { error: { code, message, errors: [detail], ...(status ? { status } : {}) } } };
}

const badRequest = (message: string) => googleError(400, message, 'badRequest', { status: 'INVALID_ARGUMENT' });
const unauthenticated: Reply = {
  ...googleError(
    401,
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    'authError',
    { status: 'UNAUTHENTICATED' },
  ),
  headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
};
const insufficientScopes = googleError(403, 'Request had insufficient authentication scopes.', 'insufficientPermissions', { status: 'PERMISSION_DENIED' });
const quotaExceeded = googleError(
  403,
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
  'quotaExceeded',
  { domain: 'youtube.quota' },
);
// https://developers.google.com/youtube/v3/docs/errors (common request errors): a Google account without a channel.
const signupRequired = googleError(401, 'Unauthorized', 'youtubeSignupRequired', { domain: 'youtube.header' });
const notFound = googleError(404, 'Not Found', 'notFound', { status: 'NOT_FOUND' });

/**
 * A scripted failure. A 403 is the day's quota used up, or, when the script gives a Retry-After, a rate limit
 * (Google's usageLimits errors); a 429 is Google's RESOURCE_EXHAUSTED.
 */
function failure(status: number, scripted: ScriptedResponse): Reply {
  if (status === 400) return badRequest('Bad Request');
  if (status === 401) return unauthenticated;
  if (status === 403 && scripted.retryAfter) return googleError(403, 'Rate Limit Exceeded', 'rateLimitExceeded', { domain: 'usageLimits' });
  if (status === 403) return quotaExceeded;
  if (status === 404) return notFound;
  if (status === 429) return googleError(429, 'Resource has been exhausted (e.g. check quota).', 'rateLimitExceeded', { status: 'RESOURCE_EXHAUSTED' });
  if (status >= 500) return googleError(status, 'Backend Error', 'backendError', { status: status === 503 ? 'UNAVAILABLE' : 'INTERNAL' });
  return googleError(status, `The fake answered ${status}`, 'unknown');
}

// https://developers.google.com/identity/protocols/oauth2/web-server: the token endpoint answers RFC 6749 §5.2 errors.
const oauthError = (status: number, error: string, description: string): Reply => ({ status, body: { error, error_description: description } });
const invalidClient = oauthError(401, 'invalid_client', 'Unauthorized');

/** The body as the discovery document's schema reads it: JSON parsed (the text when it is not JSON), undefined when none came. */
function jsonBodyOf(received: Received): unknown {
  if (received.body.length === 0) return undefined;
  const text = received.body.toString('utf8');
  if (!(received.request.headers['content-type'] ?? '').startsWith('application/json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
const etag = () => secret(20);
const partsOfQuery = (query: URLSearchParams) => (query.get('part') ?? '').split(',').map((part) => part.trim());
const objectOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** Why a title or description is refused (the Video resource's snippet.title and snippet.description), or undefined. */
function metadataRefusal(snippet: Record<string, unknown>): Reply | undefined {
  // https://developers.google.com/youtube/v3/docs/videos#snippet.title: at most 100 characters, no < or >.
  const title = snippet.title;
  if (typeof title !== 'string' || title.trim() === '' || Array.from(title).length > 100 || /[<>]/.test(title)) {
    return googleError(400, 'The request metadata specifies an invalid or empty video title.', 'invalidTitle', { domain: 'youtube.video' });
  }
  // https://developers.google.com/youtube/v3/docs/videos#snippet.description: at most 5,000 bytes, no < or >.
  const description = snippet.description ?? '';
  if (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description)) {
    return googleError(400, 'The request metadata specifies an invalid video description.', 'invalidDescription', { domain: 'youtube.video' });
  }
  return undefined;
}

type ContentRange = { query: true } | { query: false; first: number; last: number };

// The Content-Range of a PUT to an upload session (`bytes a-b/N`, or `bytes */N` to ask what arrived), or why it is wrong.
function contentRangeOf(header: string | undefined, length: number, totalBytes: number): ContentRange | string {
  if (header === undefined) {
    // Step 3 of the guide sends the whole file in one PUT, without a Content-Range.
    return length === totalBytes ? { query: false, first: 0, last: length - 1 } : `A PUT without Content-Range carries the whole file, ${totalBytes} bytes.`;
  }
  const total = (text: string) => (text === '*' ? totalBytes : Number(text));
  const asked = /^bytes \*\/(\d+|\*)$/.exec(header);
  if (asked) {
    if (length > 0 || total(asked[1]!) !== totalBytes) return `Content-Range ${header} does not ask for the status of a ${totalBytes}-byte upload.`;
    return { query: true };
  }
  const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header);
  if (!range) return 'Failed to parse Content-Range header.';
  const [first, last] = [Number(range[1]), Number(range[2])];
  if (total(range[3]!) !== totalBytes) return `Content-Range ${header} names another size than X-Upload-Content-Length, ${totalBytes}.`;
  if (last < first || last >= totalBytes || last - first + 1 !== length) return `Content-Range ${header} does not match the ${length} bytes sent.`;
  return { query: false, first, last };
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startYouTubeServer(): Promise<YouTubeServer> {
  const { contract, youtubeScopes, scopesOf, partsOf } = description();
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  /** Every refresh token issued, with its scopes: Google keeps each until it is revoked. */
  const refreshTokens = new Map<string, string[]>();
  const pageTokens = new Map<string, number>();
  let latestRefreshToken: string | undefined;
  let receivedTotal = 0;

  const scripted = await startScriptedServer<YouTubeEndpoint, ScriptedResponse, YouTubeRequest>({
    name: 'youtube',
    // Google names no rate-limit reset header: Retry-After is the only hint it may give.
    rateLimitResetHeader: 'retry-after',
    record: (request, url) => ({
      method: request.method ?? 'GET',
      path: url.pathname,
      headers: request.headers,
      query: url.searchParams,
      bytes: Number(request.headers['content-length'] ?? 0),
    }),
    route,
    failure,
  });
  const channelKey = secret(16).slice(0, 22);
  const server: YouTubeServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/o/oauth2/v2/auth`,
    tokenUrl: `${scripted.url}/token`,
    client: { clientId: `${randomBytes(6).readUIntBE(0, 6)}-${secret(12).toLowerCase()}.apps.googleusercontent.com`, clientSecret: `GOCSPX-${secret(21)}` },
    channel: { id: `UC${channelKey}`, title: 'Alice Makes Things', customUrl: '@alicemakesthings', uploadsPlaylistId: `UU${channelKey}` },
    noChannel: false,
    decision: 'consent',
    // The web server flow's token answer: "expires_in": 3599.
    accessTokenLifetimeSeconds: 3599,
    videos: [],
    sessions: new Map(),
    videoProcessingChecks: 1,
    quotaUsed: 0,
    quotaLimit: 10_000,
    unverifiedApp: false,
    holdChunkFrom: undefined,
    dropAnswerOfCompletingPut: false,
    bytesReceivedTotal: () => receivedTotal,
    currentRefreshToken: () => latestRefreshToken,
    issueAccessToken: (lifetimeSeconds = server.accessTokenLifetimeSeconds, scopes = defaultScopes) => {
      const token = `ya29.${secret(48)}`;
      accessTokens.set(token, { expiresAt: Date.now() + lifetimeSeconds * 1000, scopes: new Set(scopes) });
      return token;
    },
  };

  /**
   * https://developers.google.com/identity/protocols/oauth2/web-server (step 2): Google shows its own page for a
   * request it cannot take, and redirects back only with a code or `access_denied`. PKCE is optional at Google and
   * required here (S256), and the scopes must include youtube.upload, which an uploader cannot do without.
   */
  function authorize({ url }: Received): Reply {
    const query = url.searchParams;
    if (query.get('client_id') !== server.client.clientId) return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!URL.canParse(redirectUri)) return oauthError(400, 'redirect_uri_mismatch', `Invalid redirect_uri: ${redirectUri}`);
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    const unknown = scopes.filter((asked) => !youtubeScopes.includes(asked) && !identityScopes.includes(asked));
    if (unknown.length > 0) return oauthError(400, 'invalid_scope', `Some requested scopes were invalid: ${unknown.join(' ')}`);
    if (!scopes.includes(uploadScope)) return oauthError(400, 'invalid_scope', `The fake grants an uploader ${uploadScope} or nothing.`);
    if (query.get('response_type') !== 'code') return oauthError(400, 'invalid_request', 'Invalid response_type: the web server flow asks for code.');
    const accessType = query.get('access_type') ?? 'online';
    if (accessType !== 'online' && accessType !== 'offline') return oauthError(400, 'invalid_request', `Invalid access_type: ${accessType}`);
    const challenge = query.get('code_challenge') ?? '';
    if (query.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return oauthError(400, 'invalid_request', 'The fake requires PKCE: code_challenge, the S256 of the verifier, with code_challenge_method=S256.');
    }
    const back = new URL(redirectUri);
    if (server.decision === 'deny') back.searchParams.set('error', 'access_denied');
    else {
      const code = `4/0${secret(40)}`;
      const promptConsent = (query.get('prompt') ?? '').split(' ').includes('consent');
      grants.set(code, { redirectUri, challenge, scopes, offline: accessType === 'offline', promptConsent });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', scopes.join(' '));
    }
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { status: 302, body: {}, headers: { location: back.toString() } };
  }

  /** Whether the client authenticated, in the form (Google's documented way) or with HTTP Basic. */
  function clientAuthenticated(request: IncomingMessage, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [id, password] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [form.get('client_id'), form.get('client_secret')];
    return id === server.client.clientId && password === server.client.clientSecret;
  }

  /**
   * https://developers.google.com/identity/protocols/oauth2/web-server (step 5 and "Refreshing an access token"): a
   * code is good once, for its redirect_uri and verifier. A refresh token comes only with access_type=offline, and
   * only at the first consent or when prompt=consent asked again; refreshing returns no new one (Google does not
   * rotate them), and every refresh token issued keeps working.
   */
  function token(received: Received): Reply {
    const form = new URLSearchParams(received.body.toString('utf8'));
    if (!clientAuthenticated(received.request, form)) return invalidClient;
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = form.get('code') ?? '';
      const grant = grants.get(code);
      grants.delete(code);
      if (!grant) return oauthError(400, 'invalid_grant', 'Bad Request');
      if (grant.redirectUri !== form.get('redirect_uri')) return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
      const verifier = form.get('code_verifier');
      // The descriptions Google gives (e.g. https://github.com/kidd/org-gcal.el/issues/241).
      if (!verifier) return oauthError(400, 'invalid_grant', 'Missing code verifier.');
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return oauthError(400, 'invalid_grant', 'Invalid code verifier.');
      let refreshToken: string | undefined;
      if (grant.offline && (grant.promptConsent || latestRefreshToken === undefined)) {
        refreshToken = `1//0${secret(48)}`;
        refreshTokens.set(refreshToken, grant.scopes);
        latestRefreshToken = refreshToken;
      }
      return tokens(grant.scopes, refreshToken);
    }
    if (grantType === 'refresh_token') {
      const scopes = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!scopes) return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
      return tokens(scopes, undefined);
    }
    return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  }

  function tokens(scopes: string[], refreshToken: string | undefined): Reply {
    const accessToken = server.issueAccessToken(server.accessTokenLifetimeSeconds, scopes);
    return {
      status: 200,
      body: {
        access_token: accessToken,
        expires_in: server.accessTokenLifetimeSeconds,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        scope: scopes.join(' '),
        token_type: 'Bearer',
      },
    };
  }

  /** A list answer. The pages promise "zero or more" items: the fake leaves `items` out when there are none, so a connector must take that too. */
  function listAnswer(
    kind: string,
    items: unknown[],
    extra: Record<string, unknown> = {},
    pageInfo = { totalResults: items.length, resultsPerPage: items.length },
  ): Reply {
    return { status: 200, body: { kind, etag: etag(), ...extra, pageInfo, ...(items.length > 0 ? { items } : {}) } };
  }

  /** The filters of a list method, of which exactly one must be given (each list page's "Filters" table). */
  function filterRefusal(query: URLSearchParams, filters: string[]): Reply | undefined {
    const given = filters.filter((name) => query.has(name));
    if (given.length === 1) return undefined;
    if (given.length === 0) return googleError(400, `No filter selected. Expected one of: ${filters.join(', ')}`, 'missingRequiredParameter');
    return googleError(400, `Incompatible parameters specified in the request: ${given.join(', ')}`, 'incompatibleParameters');
  }

  /** https://developers.google.com/youtube/v3/docs/channels/list: the fake knows the account's own channel only. */
  function listChannels({ url }: Received): Reply {
    const query = url.searchParams;
    const refusal = filterRefusal(query, ['categoryId', 'forHandle', 'forUsername', 'id', 'managedByMe', 'mine']);
    if (refusal) return refusal;
    const parts = new Set(partsOfQuery(query));
    const { id, title, customUrl, uploadsPlaylistId } = server.channel;
    const asked = query.get('mine') === 'true' || (query.get('id') ?? '').split(',').includes(id);
    const items =
      asked && !server.noChannel
        ? [
            {
              kind: 'youtube#channel',
              etag: etag(),
              id,
              ...(parts.has('snippet')
                ? { snippet: { title, description: '', customUrl, publishedAt: '2019-04-02T09:00:00Z', localized: { title, description: '' } } }
                : {}),
              ...(parts.has('contentDetails') ? { contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsPlaylistId } } } : {}),
            },
          ]
        : [];
    return listAnswer('youtube#channelListResponse', items);
  }

  /**
   * https://developers.google.com/youtube/v3/docs/videos/insert with step 1 of
   * https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol: the video resource in the body,
   * the file's size and type in X-Upload-Content-Length and X-Upload-Content-Type; the answer's Location is the
   * session. `part` names what the write sets: a part sent but not named sets nothing. The fake takes resumable
   * uploads only.
   */
  function insertVideo(received: Received): Reply {
    const { request, url } = received;
    if (url.searchParams.get('uploadType') !== 'resumable')
      return badRequest('The fake takes videos.insert as a resumable upload only (uploadType=resumable).');
    if (server.noChannel) return signupRequired;
    const totalBytes = Number(request.headers['x-upload-content-length']);
    // The method's mediaUpload in the discovery document: at most 256 GB, video/* or application/octet-stream.
    if (!Number.isInteger(totalBytes) || totalBytes <= 0 || totalBytes > 274_877_906_944) {
      return badRequest('X-Upload-Content-Length must give the size of the file, at most 256 GB.');
    }
    const mediaTypeHeader = request.headers['x-upload-content-type'];
    const mediaType = typeof mediaTypeHeader === 'string' ? mediaTypeHeader : '';
    if (!/^video\/[\w.+-]+$/.test(mediaType) && mediaType !== 'application/octet-stream') {
      return badRequest(`X-Upload-Content-Type ${mediaType || '(none)'} is not video/* or application/octet-stream.`);
    }
    const parts = partsOfQuery(url.searchParams);
    const sent = objectOf(jsonBodyOf(received));
    const metadata = Object.fromEntries(Object.entries(sent).filter(([name]) => parts.includes(name)));
    const refusal = metadataRefusal(objectOf(metadata.snippet));
    if (refusal) return refusal;
    const id = secret(36);
    server.sessions.set(id, { id, totalBytes, received: [], receivedBytes: 0, metadata, parts, videoId: undefined, expired: false });
    return {
      status: 200,
      body: undefined,
      headers: { location: `${server.url}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}`, 'x-guploader-uploadid': id },
    };
  }

  /** 308 Resume Incomplete: its Range names the bytes kept, and is absent while none are (google-api-python-client#312). */
  function resumeIncomplete(session: YouTubeSession): Reply {
    return { status: 308, body: undefined, headers: session.receivedBytes > 0 ? { range: `bytes=0-${session.receivedBytes - 1}` } : {} };
  }

  function keep(session: YouTubeSession, bytes: Buffer) {
    if (bytes.length === 0) return;
    session.received.push(bytes);
    session.receivedBytes += bytes.length;
  }

  /**
   * Steps 3 to 5 of https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol: each PUT's
   * Content-Range says where its bytes go; 308 with Range until the file is whole, then 201 with the video resource;
   * an empty PUT whose Content-Range has `*` for its range asks what arrived. Every chunk but the last is a multiple
   * of 256 KiB (the guide's "Uploading a file in chunks"): the fake refuses one that is not, where Google's upload
   * server was seen keeping only its whole 256 KiB units.
   *
   * The guide says what a client should send, not what a wrong start offset gets. Google's upload server skips what
   * it already holds of a chunk that starts before its offset, and answers one that starts after it 503 "Invalid
   * request. According to the Content-Range header, the upload offset is ..." (Drive's, the same server:
   * https://github.com/Byron/google-apis-rs/issues/438; Cloud Storage's:
   * https://github.com/googleapis/google-cloud-go/issues/1507): a 5xx, after which the guide's step 4 asks for the
   * status and resumes from its Range. The fake answers both so; the 503's plain text comes as `message` in JSON.
   * The session URI carries its own authority: no access token is asked for.
   */
  async function uploadChunk(received: Received): Promise<Reply> {
    receivedTotal += received.body.length;
    const session = server.sessions.get(received.url.searchParams.get('upload_id') ?? '');
    if (!session || session.expired) return notFound;
    const video = server.videos.find((candidate) => candidate.id === session.videoId);
    if (video) return { status: 200, body: videoJson(video, new Set(session.parts)) };
    const range = contentRangeOf(received.request.headers['content-range'], received.body.length, session.totalBytes);
    if (typeof range === 'string') return badRequest(range);
    if (range.query) return resumeIncomplete(session);
    const { first, last } = range;
    if (first > session.receivedBytes) {
      return {
        status: 503,
        body: {
          message: `Invalid request.  According to the Content-Range header, the upload offset is ${first} byte(s), which exceeds already uploaded size of ${session.receivedBytes} byte(s).`,
        },
      };
    }
    const length = last - first + 1;
    if (last < session.totalBytes - 1 && length % chunkUnit !== 0) {
      return badRequest(`A chunk of ${length} bytes: every chunk but the last must be a multiple of ${chunkUnit} bytes (256 KiB).`);
    }
    const hold = server.holdChunkFrom;
    if (hold !== undefined && last >= hold) {
      server.holdChunkFrom = undefined;
      // What reached the server before the worker died, in whole units.
      const kept = Math.max(first, Math.floor(hold / chunkUnit) * chunkUnit);
      if (kept > session.receivedBytes) keep(session, received.body.subarray(session.receivedBytes - first, kept - first));
      const socket = received.request.socket;
      if (!socket.destroyed) await once(socket, 'close');
      return resumeIncomplete(session);
    }
    if (last >= session.receivedBytes) keep(session, received.body.subarray(session.receivedBytes - first));
    if (session.receivedBytes < session.totalBytes) return resumeIncomplete(session);
    const created = createVideo(session);
    if (server.dropAnswerOfCompletingPut) {
      server.dropAnswerOfCompletingPut = false;
      // The video exists; its answer never comes.
      received.request.socket.destroy();
    }
    return { status: 201, body: videoJson(created, new Set(session.parts)) };
  }

  /** The video a completed upload makes. Bytes that are no MP4 fail at once, as processing would fail them. */
  function createVideo(session: YouTubeSession): YouTubeVideo {
    const metadata = objectOf(session.metadata);
    const snippet = objectOf(metadata.snippet);
    const status = objectOf(metadata.status);
    const bytes = Buffer.concat(session.received);
    const playable = isMp4(bytes);
    const asked = status.privacyStatus as YouTubeVideo['privacyStatus'] | undefined;
    const video: YouTubeVideo = {
      id: secret(8),
      channelId: server.channel.id,
      title: snippet.title as string,
      description: (snippet.description as string | undefined) ?? '',
      // The pages name no default privacy: the fake makes a video public unless told, so a connector that means
      // private must say so.
      privacyStatus: server.unverifiedApp ? 'private' : (asked ?? 'public'),
      madeForKids: status.selfDeclaredMadeForKids === true,
      bytes,
      publishedAt: new Date(),
      uploadStatus: playable ? 'uploaded' : 'failed',
      checksLeft: playable ? server.videoProcessingChecks : 0,
      ...(playable ? {} : { failureReason: 'invalidFile' as const }),
    };
    server.videos.push(video);
    session.videoId = video.id;
    return video;
  }

  /** A video resource (https://developers.google.com/youtube/v3/docs/videos), with the parts asked. */
  function videoJson(video: YouTubeVideo, parts: Set<string>) {
    const { id, title, description, channelId, uploadStatus, privacyStatus, madeForKids } = video;
    const processingStatus = uploadStatus === 'uploaded' ? 'processing' : uploadStatus === 'failed' ? 'failed' : 'succeeded';
    return {
      kind: 'youtube#video',
      etag: etag(),
      id,
      ...(parts.has('snippet')
        ? {
            snippet: {
              publishedAt: video.publishedAt.toISOString(),
              channelId,
              title,
              description,
              channelTitle: server.channel.title,
              liveBroadcastContent: 'none',
              localized: { title, description },
            },
          }
        : {}),
      ...(parts.has('status')
        ? {
            status: {
              uploadStatus,
              ...(video.failureReason ? { failureReason: video.failureReason } : {}),
              privacyStatus,
              license: 'youtube',
              embeddable: true,
              publicStatsViewable: true,
              madeForKids,
              selfDeclaredMadeForKids: madeForKids,
            },
          }
        : {}),
      ...(parts.has('processingDetails') ? { processingDetails: { processingStatus } } : {}),
    };
  }

  /**
   * https://developers.google.com/youtube/v3/docs/videos/list by `id` (the fake lists no charts nor ratings). Each
   * answer that finds a video still processing is one check: after `videoProcessingChecks` of them it is processed.
   */
  function listVideos({ url }: Received): Reply {
    const query = url.searchParams;
    const refusal = filterRefusal(query, ['chart', 'id', 'myRating']);
    if (refusal) return refusal;
    if (!query.has('id')) return badRequest('The fake lists videos by id only.');
    const parts = new Set(partsOfQuery(query));
    const found = (query.get('id') ?? '')
      .split(',')
      .map((id) => server.videos.find((video) => video.id === id))
      .filter((video) => video !== undefined);
    for (const video of found) {
      if (video.uploadStatus !== 'uploaded') continue;
      if (video.checksLeft > 0) video.checksLeft -= 1;
      else video.uploadStatus = 'processed';
    }
    return listAnswer(
      'youtube#videoListResponse',
      found.map((video) => videoJson(video, parts)),
    );
  }

  /**
   * https://developers.google.com/youtube/v3/docs/playlistItems/list of the channel's uploads playlist, newest
   * first, `maxResults` (0 to 50, 5 unless told) at a time, `nextPageToken` leading on.
   */
  function listPlaylistItems({ url }: Received): Reply {
    const query = url.searchParams;
    const refusal = filterRefusal(query, ['id', 'playlistId']);
    if (refusal) return refusal;
    const playlistId = query.get('playlistId');
    if (server.noChannel || playlistId !== server.channel.uploadsPlaylistId) {
      return googleError(404, "The playlist identified with the request's <code>playlistId</code> parameter cannot be found.", 'playlistNotFound', {
        domain: 'youtube.playlistItem',
        location: 'playlistId',
      });
    }
    const maxResults = Number(query.get('maxResults') ?? 5);
    if (maxResults > 50) return googleError(400, 'Invalid value for parameter maxResults: at most 50.', 'invalidParameter', { location: 'maxResults' });
    const pageToken = query.get('pageToken');
    const from = pageToken === null ? 0 : pageTokens.get(pageToken);
    if (from === undefined) return googleError(400, 'The request specifies an invalid page token.', 'invalidPageToken');
    const videoId = query.get('videoId');
    const newestFirst = server.videos
      .map((video, index) => ({ video, index }))
      .filter(({ video }) => video.channelId === server.channel.id && (videoId === null || video.id === videoId))
      .sort((a, b) => b.video.publishedAt.getTime() - a.video.publishedAt.getTime() || b.index - a.index)
      .map(({ video }) => video);
    const page = newestFirst.slice(from, from + maxResults);
    let nextPageToken: string | undefined;
    if (from + maxResults < newestFirst.length) {
      nextPageToken = secret(6);
      pageTokens.set(nextPageToken, from + maxResults);
    }
    const parts = new Set(partsOfQuery(query));
    const items = page.map((video, position) => ({
      kind: 'youtube#playlistItem',
      etag: etag(),
      id: Buffer.from(`${playlistId}.${video.id}`).toString('base64url'),
      ...(parts.has('snippet')
        ? {
            snippet: {
              publishedAt: video.publishedAt.toISOString(),
              channelId: server.channel.id,
              title: video.title,
              description: video.description,
              channelTitle: server.channel.title,
              playlistId,
              position: from + position,
              resourceId: { kind: 'youtube#video', videoId: video.id },
              videoOwnerChannelId: server.channel.id,
              videoOwnerChannelTitle: server.channel.title,
            },
          }
        : {}),
      ...(parts.has('contentDetails') ? { contentDetails: { videoId: video.id, videoPublishedAt: video.publishedAt.toISOString() } } : {}),
      ...(parts.has('status') ? { status: { privacyStatus: video.privacyStatus } } : {}),
    }));
    return listAnswer('youtube#playlistItemListResponse', items, nextPageToken ? { nextPageToken } : {}, {
      totalResults: newestFirst.length,
      resultsPerPage: maxResults,
    });
  }

  function authorized(request: IncomingMessage): AccessToken | undefined {
    const header = request.headers.authorization ?? '';
    const found = header.startsWith('Bearer ') ? accessTokens.get(header.slice('Bearer '.length)) : undefined;
    return found && found.expiresAt > Date.now() ? found : undefined;
  }

  /** A request that breaks the discovery document, answered 400 with each problem named; undefined when none does. */
  function contractRefusal(received: Received): Reply | undefined {
    const { request, url } = received;
    const problems = contract.problemsOf({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, json: jsonBodyOf(received) });
    if (problems.length === 0) return undefined;
    const message = problems.join('; ');
    const errors = problems.map((problem) => ({
      message: problem,
      domain: 'global',
      reason: problem.startsWith('query parameter') ? 'invalidParameter' : 'badRequest',
    }));
    return { status: 400, body: { error: { code: 400, message, errors, status: 'INVALID_ARGUMENT' } } };
  }

  const handlers: Record<ApiEndpoint, (received: Received) => Reply> = {
    channels: listChannels,
    videos_insert: insertVideo,
    videos_list: listVideos,
    playlist_items: listPlaylistItems,
  };

  /**
   * An API call: the token and its scopes (the method's `scopes` in the discovery document, any one of them), the
   * day's quota, the discovery document, the `part` names, then the method. Every call is charged, a refused one
   * 1 unit ("All API requests, including invalid requests, incur a quota cost of at least one point",
   * https://developers.google.com/youtube/v3/determine_quota_cost).
   */
  function apiRoute(endpoint: ApiEndpoint, request: IncomingMessage): Route<YouTubeEndpoint> {
    return {
      endpoint,
      handle: (received) => {
        const token = authorized(request);
        if (!token) return unauthenticated;
        if (!scopesOf(endpoint).some((granted) => token.scopes.has(granted))) return insufficientScopes;
        const { quotaCost } = operations[endpoint];
        if (server.quotaUsed + quotaCost > server.quotaLimit) return quotaExceeded;
        const unknownParts = partsOfQuery(received.url.searchParams).filter((part) => !partsOf(endpoint).includes(part));
        const reply =
          contractRefusal(received) ??
          (unknownParts.length > 0 && received.url.searchParams.has('part')
            ? googleError(400, `'${unknownParts.join(', ')}'`, 'unknownPart', { domain: 'youtube.part', location: 'part' })
            : handlers[endpoint](received));
        server.quotaUsed += reply.status < 400 ? quotaCost : 1;
        return reply;
      },
    };
  }

  function route(request: IncomingMessage, url: URL): Route<YouTubeEndpoint> | Reply {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/o/oauth2/v2/auth') return { endpoint: 'authorize', handle: authorize };
    if (method === 'POST' && path === '/token') return { endpoint: 'token', handle: token };
    // The session URI is no method of the discovery document: its PUTs are checked by hand (uploadChunk).
    if (method === 'PUT' && path === '/upload/youtube/v3/videos' && url.searchParams.has('upload_id'))
      return { endpoint: 'upload_session', handle: uploadChunk };
    if (method === 'GET' && path === '/youtube/v3/channels') return apiRoute('channels', request);
    // The discovery document's two media upload paths for videos.insert (mediaUpload.protocols).
    if (method === 'POST' && (path === '/upload/youtube/v3/videos' || path === '/resumable/upload/youtube/v3/videos'))
      return apiRoute('videos_insert', request);
    if (method === 'GET' && path === '/youtube/v3/videos') return apiRoute('videos_list', request);
    if (method === 'GET' && path === '/youtube/v3/playlistItems') return apiRoute('playlist_items', request);
    const problems = contract.problemsOf({ method, path, query: url.searchParams, json: undefined });
    return googleError(404, problems[0]?.endsWith('is not a method of the API') ? problems[0] : `The fake has no ${method} ${path}.`, 'notFound');
  }

  return server;
}
