import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isMp4, videoFactsOf } from './mp4.ts';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for LinkedIn, on one origin for both of its hosts (www.linkedin.com's OAuth endpoints and
// api.linkedin.com's API), speaking what the connector and the OAuth side use:
// - OAuth 2 authorization code flow, https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow:
//   GET /oauth/v2/authorization answers as a member who consents (or declines), POST /oauth/v2/accessToken checks the
//   client secret in the form body, the code, its redirect_uri and, when a code_challenge was sent, the PKCE S256 verifier.
// - Programmatic refresh, https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens:
//   a refresh gives a new access token and the same refresh token back, with what is left of its year (LinkedIn does
//   not rotate it); a revoked or expired one is refused with the OAuth error body.
// - GET /v2/userinfo, https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2,
//   and GET /v2/me (r_basicprofile), https://learn.microsoft.com/en-us/linkedin/shared/integrations/people/profile-api
// - Two apps of the operator's: one with Sign In and Share (and, in some tests, the Community Management API too), and
//   one with the Community Management API alone, whose scopes are that product's; a code and a refresh token are
//   good only with the client of the app that issued them.
// - GET /rest/organizationAcls?q=roleAssignee, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role
// - GET /rest/organizations/{id}, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-lookup-api
// - POST /rest/images?action=initializeUpload and the PUT to its upload URL, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
// - POST /rest/videos?action=initializeUpload, the PUT of each part to its pre-signed URL (answered with an ETag),
//   POST /rest/videos?action=finalizeUpload naming the ETags in order, and GET /rest/videos/{urn} while it processes,
//   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api: 75 KB to 500 MB,
//   refused at initialize above it; 3 seconds to 30 minutes and 1:2.4 to 2.4:1, failed at processing otherwise
//   (PROCESSING_FAILED); a post may name a video only once it is AVAILABLE.
// - POST /rest/posts (the id in x-restli-id) and GET /rest/posts?q=author, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
// Versioned (/rest) calls need LinkedIn-Version and X-Restli-Protocol-Version
// (https://learn.microsoft.com/en-us/linkedin/marketing/versioning). API errors are the documented
// `{ status, serviceErrorCode, code, message }` (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling),
// token errors `{ error, error_description }`; a 429 has no reset header, as LinkedIn's daily limits reset at
// midnight UTC (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits).

type LinkedInEndpoint =
  | 'authorization'
  | 'accessToken'
  | 'userinfo'
  | 'me'
  | 'organizationAcls'
  | 'organization'
  | 'initializeUpload'
  | 'upload'
  | 'initializeVideoUpload'
  | 'uploadVideoPart'
  | 'finalizeVideoUpload'
  | 'getVideo'
  | 'createPost'
  | 'listPosts';

/** A scripted answer; `oauthError` makes its body the token endpoint's `{ error, error_description }`. */
type LinkedInScriptedResponse = ScriptedResponse & { message?: string; oauthError?: string };

type LinkedInRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingHttpHeaders };

type LinkedInAcl = { organization: string; role: string; state: 'APPROVED' | 'REQUESTED' | 'REJECTED' | 'REVOKED' };

type LinkedInImageRecord = { urn: string; owner: string; uploadId: string; bytes?: Buffer; contentType?: string };

/** A video: its parts as uploaded (by index), the ETag answered for each, and where its processing stands. */
type LinkedInVideoRecord = {
  urn: string;
  owner: string;
  uploadId: string;
  size: number;
  partBytes: number;
  uploadToken: string;
  parts: Map<number, Buffer>;
  etags: Map<number, string>;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Status checks left answering PROCESSING. */
  checksLeft: number;
  failure?: string;
  /** The whole file, once finalized. */
  bytes?: Buffer;
};

type LinkedInPost = {
  id: string;
  author: string;
  commentary: string;
  visibility: string;
  lifecycleState: string;
  media?: { id: string; altText?: string | undefined } | undefined;
  createdAt: number;
  /** The headers the post was created with (LinkedIn-Version among them). */
  headers: IncomingHttpHeaders;
};

type Grant = { clientId: string; scopes: Set<string>; expiresAt: number };
type RefreshGrant = Grant & { revoked: boolean };
type Authorization = { clientId: string; redirectUri: string; scopes: string[]; codeChallenge?: string; expiresAt: number; used: boolean };

export type LinkedInServer = ScriptedServer<LinkedInEndpoint, LinkedInScriptedResponse, LinkedInRequest> & {
  client: { clientId: string; clientSecret: string };
  /** The operator's second app, with the Community Management API alone. */
  organizationClient: { clientId: string; clientSecret: string };
  /** The scopes that app's one product grants. */
  organizationAppScopes: Set<string>;
  /** The redirect URLs registered for the app: the authorization and the code exchange must name one exactly. */
  redirectUris: string[];
  /** The scopes the app's products grant (asking for another is `unauthorized_scope_error`). */
  appScopes: Set<string>;
  member: { sub: string; name: string };
  /** The member's roles in organisations. */
  acls: LinkedInAcl[];
  /** Organisations by id: their names. */
  organizations: Map<string, string>;
  /** Whether the app has programmatic refresh tokens (else a grant carries none). */
  programmaticRefresh: boolean;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  /** Whether the member declines the next authorizations. */
  memberDeclines: boolean;
  /** The form of each token request, as received. */
  tokenRequests: URLSearchParams[];
  images: LinkedInImageRecord[];
  videos: LinkedInVideoRecord[];
  /** The size of a video's parts (LinkedIn's is 4 MB; a test may ask for smaller ones to make several of a small file). */
  videoPartBytes: number;
  /** How many status checks of a finalized video answer PROCESSING before it is AVAILABLE (or fails). */
  videoProcessingChecks: number;
  posts: LinkedInPost[];
  /** The upload URL an image upload is given: by default the fake's own (a test may give one off LinkedIn). */
  uploadUrlOf: (uploadId: string) => string;
  /** How many of the next posts are created and then never answered, until the client hangs up. */
  silentAfterCreate: number;
  /** Grants the member's tokens directly, as if through the flow (of the first app, unless `clientId` says). */
  grantTokens(scopes: string[], clientId?: string): { accessToken: string; refreshToken: string };
  /** The member revokes the app: its tokens stop working. */
  revokeAll(): void;
};

const memberScopes = ['openid', 'profile', 'w_member_social'];
const organizationScopes = ['w_organization_social', 'r_organization_social', 'r_organization_admin'];
const maxCommentaryChars = 3_000;
const videoMinBytes = 75 * 1024;
const videoMaxBytes = 500 * 1024 * 1024;
const codeLifetimeMs = 30 * 60_000;
// Organic posts as the organisation: administrators and content administrators; a sponsored content poster makes ads
// only (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role).
const postingRoles = new Set(['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR']);
const defaultMessages: Record<number, { code: string; serviceErrorCode: number; message: string }> = {
  401: { code: 'INVALID_ACCESS_TOKEN', serviceErrorCode: 65600, message: 'Invalid access token' },
  403: { code: 'ACCESS_DENIED', serviceErrorCode: 100, message: 'Not enough permissions to access this resource' },
  404: { code: 'NOT_FOUND', serviceErrorCode: 0, message: 'Not Found' },
  429: { code: 'TOO_MANY_REQUESTS', serviceErrorCode: 101, message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.' },
  500: { code: 'INTERNAL_SERVER_ERROR', serviceErrorCode: 0, message: 'Internal Server Error' },
  503: { code: 'SERVICE_UNAVAILABLE', serviceErrorCode: 0, message: 'Service Unavailable' },
};

function apiError(status: number, message?: string, code?: string): Reply {
  const known = defaultMessages[status] ?? { code: 'BAD_REQUEST', serviceErrorCode: 0, message: `The fake answered ${status}` };
  return { status, body: { status, serviceErrorCode: known.serviceErrorCode, code: code ?? known.code, message: message ?? known.message } };
}

function oauthError(status: number, error: string, description: string): Reply {
  return { status, body: { error, error_description: description } };
}

function formOf(received: Received): URLSearchParams {
  return new URLSearchParams(received.body.toString('utf8'));
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startLinkedInServer(): Promise<LinkedInServer> {
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, RefreshGrant>();
  const authorizations = new Map<string, Authorization>();
  let lastPostId = 7_300_000_000_000_000_000n;

  const scripted = await startScriptedServer<LinkedInEndpoint, LinkedInScriptedResponse, LinkedInRequest>({
    name: 'linkedin',
    // LinkedIn sends no reset header (its limits reset at midnight UTC); a script never sets one.
    rateLimitResetHeader: 'x-ratelimit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers }),
    route,
    failure: (status, { message, oauthError: error }) => (error ? oauthError(status, error, message ?? error) : apiError(status, message)),
  });
  const server: LinkedInServer = {
    ...scripted,
    client: { clientId: `client-${randomUUID()}`, clientSecret: `secret-${randomBytes(16).toString('hex')}` },
    organizationClient: { clientId: `client-${randomUUID()}`, clientSecret: `secret-${randomBytes(16).toString('hex')}` },
    organizationAppScopes: new Set(['r_basicprofile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin']),
    redirectUris: [],
    appScopes: new Set([...memberScopes, ...organizationScopes]),
    member: { sub: 'ZqXl3k9aTb', name: 'Alice Example' },
    acls: [],
    organizations: new Map(),
    programmaticRefresh: true,
    accessTokenSeconds: 60 * 24 * 3600,
    refreshTokenSeconds: 365 * 24 * 3600,
    memberDeclines: false,
    tokenRequests: [],
    images: [],
    videos: [],
    videoPartBytes: 4 * 1024 * 1024,
    videoProcessingChecks: 1,
    posts: [],
    silentAfterCreate: 0,
    uploadUrlOf: (uploadId) => `${server.url}/dms-uploads/${uploadId}`,
    grantTokens: (scopes, clientId) => issue(clientId ?? server.client.clientId, new Set(scopes)),
    revokeAll() {
      for (const grant of refreshTokens.values()) grant.revoked = true;
      accessTokens.clear();
    },
  };
  const personUrn = () => `urn:li:person:${server.member.sub}`;

  function issue(clientId: string, scopes: Set<string>): { accessToken: string; refreshToken: string } {
    const accessToken = `AQV${randomBytes(24).toString('base64url')}`;
    const refreshToken = `AQW${randomBytes(24).toString('base64url')}`;
    accessTokens.set(accessToken, { clientId, scopes, expiresAt: Date.now() + server.accessTokenSeconds * 1000 });
    refreshTokens.set(refreshToken, { clientId, scopes, expiresAt: Date.now() + server.refreshTokenSeconds * 1000, revoked: false });
    return { accessToken, refreshToken };
  }

  /** The grant of the request's bearer token, or the 401 LinkedIn answers. */
  function grantOf(request: IncomingMessage): Grant | Reply {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const grant = token ? accessTokens.get(token) : undefined;
    if (!grant) return apiError(401);
    if (grant.expiresAt <= Date.now()) return apiError(401, 'The token used in the request has expired', 'EXPIRED_ACCESS_TOKEN');
    return grant;
  }

  function mayPostFor(organization: string): boolean {
    return server.acls.some((acl) => acl.organization === organization && acl.state === 'APPROVED' && postingRoles.has(acl.role));
  }

  /** Whether the grant lets the member act for `author`: themself with `memberScope`, an organisation they hold a role in with `organizationScope`. */
  function actsFor(grant: Grant, author: string, memberScope: string, organizationScope: string): boolean {
    if (author === personUrn()) return grant.scopes.has(memberScope);
    return author.startsWith('urn:li:organization:') && grant.scopes.has(organizationScope) && mayPostFor(author);
  }

  /** The operator's app of this client id: its secret and the scopes its products grant. */
  function appOf(clientId: string | null): { clientSecret: string; scopes: Set<string> } | undefined {
    if (clientId === server.client.clientId) return { clientSecret: server.client.clientSecret, scopes: server.appScopes };
    if (clientId === server.organizationClient.clientId) return { clientSecret: server.organizationClient.clientSecret, scopes: server.organizationAppScopes };
    return undefined;
  }

  function authorize(received: Received): Reply {
    const query = received.url.searchParams;
    const clientId = query.get('client_id') ?? '';
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('response_type') !== 'code') return oauthError(400, 'invalid_request', 'response_type must be code');
    const app = appOf(clientId);
    if (!app) return oauthError(401, 'invalid_client', 'Client authentication failed');
    if (!server.redirectUris.includes(redirectUri)) return oauthError(400, 'invalid_redirect_uri', 'The redirect_uri does not match the registered value');
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    const unknown = scopes.find((scope) => !app.scopes.has(scope));
    if (unknown) {
      back.searchParams.set('error', 'unauthorized_scope_error');
      back.searchParams.set('error_description', `Scope "${unknown}" is not authorized for your application`);
    } else if (server.memberDeclines) {
      back.searchParams.set('error', 'user_cancelled_authorize');
      back.searchParams.set('error_description', 'The user cancelled the authorization');
    } else {
      const code = `AQT${randomBytes(24).toString('base64url')}`;
      const codeChallenge = query.get('code_challenge') ?? undefined;
      if (codeChallenge && query.get('code_challenge_method') !== 'S256') return oauthError(400, 'invalid_request', 'code_challenge_method must be S256');
      authorizations.set(code, { clientId, redirectUri, scopes, codeChallenge, expiresAt: Date.now() + codeLifetimeMs, used: false });
      back.searchParams.set('code', code);
    }
    return { status: 302, body: {}, headers: { location: back.toString() } };
  }

  function tokenAnswer(accessToken: string, grant: Grant, refreshToken: string | undefined): Reply {
    const refresh = refreshToken ? refreshTokens.get(refreshToken) : undefined;
    return {
      status: 200,
      body: {
        access_token: accessToken,
        expires_in: Math.round((grant.expiresAt - Date.now()) / 1000),
        ...(refresh && refreshToken ? { refresh_token: refreshToken, refresh_token_expires_in: Math.round((refresh.expiresAt - Date.now()) / 1000) } : {}),
        scope: [...grant.scopes].join(','),
      },
    };
  }

  function exchange(form: URLSearchParams): Reply {
    const code = form.get('code') ?? '';
    const authorization = authorizations.get(code);
    const verifier = form.get('code_verifier');
    const matches =
      authorization !== undefined &&
      !authorization.used &&
      authorization.expiresAt > Date.now() &&
      authorization.redirectUri === form.get('redirect_uri') &&
      authorization.clientId === form.get('client_id') &&
      (authorization.codeChallenge === undefined || (verifier !== null && s256(verifier) === authorization.codeChallenge));
    if (!matches) {
      return oauthError(
        400,
        'invalid_request',
        'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.',
      );
    }
    authorization.used = true;
    const { accessToken, refreshToken } = issue(authorization.clientId, new Set(authorization.scopes));
    if (!server.programmaticRefresh) refreshTokens.delete(refreshToken);
    return tokenAnswer(accessToken, accessTokens.get(accessToken)!, server.programmaticRefresh ? refreshToken : undefined);
  }

  function refresh(form: URLSearchParams): Reply {
    const refreshToken = form.get('refresh_token') ?? '';
    const grant = refreshTokens.get(refreshToken);
    if (!grant || grant.revoked || grant.expiresAt <= Date.now() || grant.clientId !== form.get('client_id')) {
      return oauthError(400, 'invalid_request', 'The provided refresh token is invalid, expired or revoked');
    }
    const accessToken = `AQV${randomBytes(24).toString('base64url')}`;
    const access = { clientId: grant.clientId, scopes: grant.scopes, expiresAt: Date.now() + server.accessTokenSeconds * 1000 };
    accessTokens.set(accessToken, access);
    // The same refresh token, its lifetime counted from the first grant.
    return tokenAnswer(accessToken, access, refreshToken);
  }

  function accessToken(received: Received): Reply {
    const form = formOf(received);
    server.tokenRequests.push(form);
    if (!(received.request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return oauthError(400, 'invalid_request', 'The request must be application/x-www-form-urlencoded');
    }
    const app = appOf(form.get('client_id'));
    if (!app || form.get('client_secret') !== app.clientSecret) {
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    if (form.get('grant_type') === 'authorization_code') return exchange(form);
    if (form.get('grant_type') === 'refresh_token') return refresh(form);
    return oauthError(400, 'unsupported_grant_type', 'The grant type is not supported');
  }

  function userinfo(grant: Grant): Reply {
    if (!grant.scopes.has('openid')) return apiError(403);
    const [given, family] = server.member.name.split(' ');
    return {
      status: 200,
      body: { sub: server.member.sub, name: server.member.name, given_name: given, family_name: family, locale: { country: 'US', language: 'en' } },
    };
  }

  function me(grant: Grant): Reply {
    if (!grant.scopes.has('r_basicprofile')) return apiError(403, 'Not enough permissions to access: me.GET.NO_VERSION');
    const [first, last] = server.member.name.split(' ');
    return { status: 200, body: { id: server.member.sub, localizedFirstName: first, localizedLastName: last, vanityName: 'alice-example' } };
  }

  function organizationAcls(grant: Grant, query: URLSearchParams): Reply {
    if (query.get('q') !== 'roleAssignee') return apiError(400, 'q must be roleAssignee', 'BAD_REQUEST');
    if (!grant.scopes.has('r_organization_admin') && !grant.scopes.has('rw_organization_admin'))
      return apiError(403, 'Not enough permissions to access: organizationAcls.FINDER-roleAssignee');
    const state = query.get('state');
    const role = query.get('role');
    const start = Number(query.get('start') ?? 0);
    const count = Number(query.get('count') ?? 10);
    const matching = server.acls.filter((acl) => (!state || acl.state === state) && (!role || acl.role === role));
    const elements = matching.slice(start, start + count).map((acl) => ({ ...acl, roleAssignee: personUrn() }));
    return { status: 200, body: { paging: { start, count, links: [], total: matching.length }, elements } };
  }

  function organization(id: string): Reply {
    const name = server.organizations.get(id);
    if (name === undefined) return apiError(404);
    return { status: 200, body: { id: Number(id), localizedName: name, vanityName: name.toLowerCase().replaceAll(' ', '-') } };
  }

  function initializeUpload(grant: Grant, received: Received): Reply {
    const request = jsonOf(received).initializeUploadRequest as { owner?: unknown } | undefined;
    const owner = typeof request?.owner === 'string' ? request.owner : '';
    if (!owner) return apiError(422, 'initializeUploadRequest.owner is required', 'UNPROCESSABLE_ENTITY');
    if (!actsFor(grant, owner, 'w_member_social', 'w_organization_social')) return apiError(403);
    const uploadId = randomUUID();
    const image = { urn: `urn:li:image:D4E${randomBytes(9).toString('base64url')}`, owner, uploadId };
    server.images.push(image);
    return {
      status: 200,
      body: { value: { uploadUrlExpiresAt: Date.now() + 3_600_000, uploadUrl: server.uploadUrlOf(uploadId), image: image.urn } },
    };
  }

  function upload(uploadId: string, received: Received): Reply {
    const image = server.images.find((candidate) => candidate.uploadId === uploadId);
    if (!image) return apiError(404);
    image.bytes = received.body;
    image.contentType = received.request.headers['content-type'];
    return { status: 201, body: {} };
  }

  function initializeVideoUpload(grant: Grant, received: Received): Reply {
    const request = (jsonOf(received).initializeUploadRequest ?? {}) as { owner?: unknown; fileSizeBytes?: unknown };
    const owner = typeof request.owner === 'string' ? request.owner : '';
    const size = request.fileSizeBytes;
    if (!owner || typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0)
      return apiError(422, 'initializeUploadRequest.owner and fileSizeBytes are required', 'UNPROCESSABLE_ENTITY');
    if (size > videoMaxBytes) return apiError(400, `fileSizeBytes ${size} is larger than the ${videoMaxBytes} bytes allowed`, 'BAD_REQUEST');
    if (!actsFor(grant, owner, 'w_member_social', 'w_organization_social'))
      return apiError(403, 'Accessing this video resource is forbidden. Please check your permissions for this resource');
    const video: LinkedInVideoRecord = {
      urn: `urn:li:video:C5F10AQ${randomBytes(9).toString('base64url')}`,
      owner,
      uploadId: randomUUID(),
      size,
      partBytes: server.videoPartBytes,
      uploadToken: randomBytes(12).toString('hex'),
      parts: new Map(),
      etags: new Map(),
      status: 'WAITING_UPLOAD',
      checksLeft: 0,
    };
    server.videos.push(video);
    const uploadInstructions = [];
    for (let firstByte = 0, part = 0; firstByte < size; firstByte += video.partBytes, part += 1) {
      const lastByte = Math.min(size, firstByte + video.partBytes) - 1;
      uploadInstructions.push({
        uploadUrl: `${server.url}/dms-uploads/video/${video.uploadId}/${part}?signature=${randomBytes(8).toString('hex')}`,
        firstByte,
        lastByte,
      });
    }
    return {
      status: 200,
      body: { value: { uploadUrlsExpireAt: Date.now() + 3_600_000, video: video.urn, uploadInstructions, uploadToken: video.uploadToken } },
    };
  }

  /** A part's PUT to its pre-signed URL: exactly its range's bytes, as an octet stream; answered with its ETag. */
  function uploadVideoPart(received: Received, uploadId: string, part: number): Reply {
    const video = server.videos.find((candidate) => candidate.uploadId === uploadId);
    if (!video || video.status !== 'WAITING_UPLOAD') return apiError(404);
    const expected = Math.min(video.partBytes, video.size - part * video.partBytes);
    if (expected <= 0) return apiError(404);
    if (received.request.headers['content-type'] !== 'application/octet-stream') return apiError(400, 'Content-Type must be application/octet-stream');
    if (received.body.length !== expected) return apiError(400, `part ${part} must be ${expected} bytes, not ${received.body.length}`);
    const etag = `/ambry-video/signedId/${randomBytes(12).toString('hex')}`;
    video.parts.set(part, received.body);
    video.etags.set(part, etag);
    return { status: 200, body: {}, headers: { etag } };
  }

  /** Why LinkedIn would fail the video at processing, or undefined. */
  function videoRefusal(bytes: Buffer): string | undefined {
    const facts = isMp4(bytes) ? videoFactsOf(bytes) : undefined;
    if (!facts) return 'The video format is not supported';
    if (bytes.length < videoMinBytes) return `The video is ${bytes.length} bytes, smaller than ${videoMinBytes}`;
    if (facts.seconds < 3 || facts.seconds > 30 * 60) return `The video lasts ${facts.seconds} s, not between 3 seconds and 30 minutes`;
    const ratio = facts.width / facts.height;
    if (ratio < 1 / 2.4 || ratio > 2.4) return `The video's aspect ratio ${facts.width}:${facts.height} is not between 1:2.4 and 2.4:1`;
    return undefined;
  }

  function finalizeVideoUpload(grant: Grant, received: Received): Reply {
    const request = (jsonOf(received).finalizeUploadRequest ?? {}) as { video?: unknown; uploadToken?: unknown; uploadedPartIds?: unknown };
    const video = server.videos.find((candidate) => candidate.urn === request.video);
    if (!video) return apiError(404);
    if (!actsFor(grant, video.owner, 'w_member_social', 'w_organization_social')) return apiError(403);
    if (video.status !== 'WAITING_UPLOAD') return apiError(400, `Video ${video.urn} is not waiting for an upload`, 'BAD_REQUEST');
    const partCount = Math.ceil(video.size / video.partBytes);
    const expected = Array.from({ length: partCount }, (_, part) => video.etags.get(part));
    const named = Array.isArray(request.uploadedPartIds) ? request.uploadedPartIds : [];
    if (request.uploadToken !== video.uploadToken) return apiError(400, 'The upload token does not match the video', 'BAD_REQUEST');
    if (expected.some((etag, at) => etag === undefined || named[at] !== etag) || named.length !== partCount)
      return apiError(400, 'uploadedPartIds must name the ETag of every part, in order', 'BAD_REQUEST');
    video.bytes = Buffer.concat(Array.from({ length: partCount }, (_, part) => video.parts.get(part)!));
    video.failure = videoRefusal(video.bytes);
    video.status = 'PROCESSING';
    video.checksLeft = server.videoProcessingChecks;
    return { status: 200, body: {} };
  }

  function getVideo(grant: Grant, urn: string): Reply {
    const video = server.videos.find((candidate) => candidate.urn === urn);
    if (!video) return apiError(404);
    if (!actsFor(grant, video.owner, 'w_member_social', 'w_organization_social'))
      return apiError(403, 'Accessing this video resource is forbidden. Please check your permissions for this resource');
    if (video.status === 'PROCESSING') {
      if (video.checksLeft > 0) video.checksLeft -= 1;
      else video.status = video.failure ? 'PROCESSING_FAILED' : 'AVAILABLE';
    }
    return {
      status: 200,
      body: {
        id: video.urn,
        owner: video.owner,
        status: video.status,
        ...(video.status === 'PROCESSING_FAILED' ? { processingFailureReason: video.failure } : {}),
      },
    };
  }

  async function createPost(grant: Grant, received: Received): Promise<Reply> {
    const body = jsonOf(received);
    const author = typeof body.author === 'string' ? body.author : '';
    const commentary = typeof body.commentary === 'string' ? body.commentary : '';
    if (!actsFor(grant, author, 'w_member_social', 'w_organization_social')) {
      return apiError(403, `Not enough permissions to access: partnerApiPostsExternal.CREATE.${String(received.request.headers['linkedin-version'])}`);
    }
    if (commentary.length > maxCommentaryChars) return apiError(422, `commentary is longer than ${maxCommentaryChars} characters`, 'UNPROCESSABLE_ENTITY');
    const media = (body.content as { media?: { id?: unknown; altText?: unknown } } | undefined)?.media;
    if (media) {
      const image = server.images.find((candidate) => candidate.urn === media.id);
      const video = server.videos.find((candidate) => candidate.urn === media.id);
      const uploaded = image?.bytes !== undefined || video?.status === 'AVAILABLE';
      if (!uploaded || (image ?? video)!.owner !== author) return apiError(400, `Media ${String(media.id)} is not uploaded by the author`, 'BAD_REQUEST');
    }
    const post: LinkedInPost = {
      id: `urn:li:share:${(lastPostId += 1n)}`,
      author,
      commentary,
      visibility: typeof body.visibility === 'string' ? body.visibility : '',
      lifecycleState: typeof body.lifecycleState === 'string' ? body.lifecycleState : '',
      media: media ? { id: String(media.id), altText: typeof media.altText === 'string' ? media.altText : undefined } : undefined,
      createdAt: Date.now(),
      headers: received.request.headers,
    };
    server.posts.push(post);
    if (server.silentAfterCreate > 0) {
      server.silentAfterCreate -= 1;
      // Created, and the answer never comes: the client gives up and hangs up.
      await new Promise((hungUp) => received.request.socket.once('close', hungUp));
    }
    return { status: 201, body: {}, headers: { 'x-restli-id': post.id } };
  }

  function listPosts(grant: Grant, query: URLSearchParams): Reply {
    const author = query.get('author') ?? '';
    if (query.get('q') !== 'author') return apiError(400, 'q must be author', 'BAD_REQUEST');
    // A member's posts need r_member_social, which LinkedIn grants to approved partners only.
    if (!actsFor(grant, author, 'r_member_social', 'r_organization_social'))
      return apiError(403, 'Not enough permissions to access: partnerApiPostsExternal.FINDER-author');
    const count = Number(query.get('count') ?? 10);
    const newestFirst = server.posts.filter((post) => post.author === author).toReversed();
    const elements = newestFirst.slice(0, count).map((post) => ({
      id: post.id,
      author: post.author,
      commentary: post.commentary,
      visibility: post.visibility,
      lifecycleState: post.lifecycleState,
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(post.media ? { content: { media: post.media } } : {}),
      createdAt: post.createdAt,
      publishedAt: post.createdAt,
      lastModifiedAt: post.createdAt,
      isReshareDisabledByAuthor: false,
      lifecycleStateInfo: { isEditedByAuthor: false },
    }));
    return { status: 200, body: { paging: { start: 0, count, links: [] }, elements } };
  }

  /** A versioned call's headers, or LinkedIn's 400 for a missing one. */
  function versionProblem(request: IncomingMessage): Reply | undefined {
    if (!/^\d{6}$/.test(String(request.headers['linkedin-version'] ?? ''))) {
      return apiError(400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', 'VERSION_MISSING');
    }
    if (request.headers['x-restli-protocol-version'] !== '2.0.0') return apiError(400, 'X-Restli-Protocol-Version 2.0.0 is required', 'BAD_REQUEST');
    return undefined;
  }

  /** `handle` for a caller with a valid bearer token (and the version headers on /rest calls). */
  function withGrant(endpoint: LinkedInEndpoint, handle: (grant: Grant, received: Received) => Reply | Promise<Reply>): Route<LinkedInEndpoint> {
    return {
      endpoint,
      handle: (received) => {
        if (received.url.pathname.startsWith('/rest/')) {
          const problem = versionProblem(received.request);
          if (problem) return problem;
        }
        const grant = grantOf(received.request);
        return 'status' in grant ? grant : handle(grant, received);
      },
    };
  }

  function route(request: IncomingMessage, url: URL): Route<LinkedInEndpoint> | Reply {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/oauth/v2/authorization') return { endpoint: 'authorization', handle: authorize };
    if (method === 'POST' && path === '/oauth/v2/accessToken') return { endpoint: 'accessToken', handle: accessToken };
    if (method === 'GET' && path === '/v2/userinfo') return withGrant('userinfo', userinfo);
    if (method === 'GET' && path === '/v2/me') return withGrant('me', me);
    if (method === 'GET' && path === '/rest/organizationAcls')
      return withGrant('organizationAcls', (grant, { url: at }) => organizationAcls(grant, at.searchParams));
    const organizationId = method === 'GET' ? /^\/rest\/organizations\/(\d+)$/.exec(path)?.[1] : undefined;
    if (organizationId) return withGrant('organization', () => organization(organizationId));
    if (method === 'POST' && path === '/rest/images' && url.searchParams.get('action') === 'initializeUpload')
      return withGrant('initializeUpload', initializeUpload);
    const videoPart = method === 'PUT' ? /^\/dms-uploads\/video\/([\w-]+)\/(\d+)$/.exec(path) : null;
    // Pre-signed: the URL is the permission, no token.
    if (videoPart) return { endpoint: 'uploadVideoPart', handle: (received) => uploadVideoPart(received, videoPart[1]!, Number(videoPart[2])) };
    if (method === 'POST' && path === '/rest/videos' && url.searchParams.get('action') === 'initializeUpload')
      return withGrant('initializeVideoUpload', initializeVideoUpload);
    if (method === 'POST' && path === '/rest/videos' && url.searchParams.get('action') === 'finalizeUpload')
      return withGrant('finalizeVideoUpload', finalizeVideoUpload);
    const videoUrn = method === 'GET' ? /^\/rest\/videos\/([^/]+)$/.exec(path)?.[1] : undefined;
    if (videoUrn) return withGrant('getVideo', (grant) => getVideo(grant, decodeURIComponent(videoUrn)));
    const uploadId = method === 'PUT' ? /^\/dms-uploads\/([\w-]+)$/.exec(path)?.[1] : undefined;
    if (uploadId) return withGrant('upload', (_grant, received) => upload(uploadId, received));
    if (method === 'POST' && path === '/rest/posts') return withGrant('createPost', createPost);
    if (method === 'GET' && path === '/rest/posts') return withGrant('listPosts', (grant, { url: at }) => listPosts(grant, at.searchParams));
    return apiError(404);
  }

  return server;
}
