import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isMp4 } from './mp4.ts';
import { multipartPartsOf } from './multipart-parts.ts';
import { loadOpenApiContract, type ApiContract } from './openapi-contract.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Pinterest: its OAuth 2.0 authorization code flow and the part of API v5 that publishing uses,
// with the S3 form upload a video goes through. Each endpoint links the page that documents it. What it cannot show
// of the real Pinterest: the consent screen (it answers as a person who consents, or refuses when told), app review
// and the access tiers (https://developers.pinterest.com/docs/key-concepts/access-tiers/: Trial access's limits and
// the sandbox API, which the description marks per operation as `x-sandbox`), the real rate-limit windows (a test
// scripts a 429), image_url Pins (it fetches no URL), the images Pinterest makes of a Pin, and real video
// processing: a video's length, size and codec are not checked, only that it is an MP4, and it is ready after
// `videoProcessingChecks` status checks rather than after a while. S3 answers its errors in XML; the scripted server
// answers JSON, so the fake carries S3's error `Code` and `Message` as JSON (a connector should read S3's status
// only).

type PinterestEndpoint = 'authorize' | 'token' | 'user_account' | 'boards' | 'board' | 'board_pins' | 'pins' | 'media_register' | 'media_upload' | 'media_get';

type PinterestRequest = { method: string; path: string; headers: IncomingHttpHeaders; query: URLSearchParams };

type PinterestPin = {
  id: string;
  boardId: string;
  title: string | undefined;
  description: string | undefined;
  link: string | undefined;
  altText: string | undefined;
  createdAt: Date;
  media: { kind: 'image'; bytes: Buffer; contentType: string } | { kind: 'video'; mediaId: string };
};

type PinterestMedia = { id: string; status: 'registered' | 'processing' | 'succeeded' | 'failed'; bytes: Buffer | undefined; checksLeft: number };

type Board = { id: string; name: string; privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET' };

export type PinterestServer = ScriptedServer<PinterestEndpoint, ScriptedResponse, PinterestRequest> & {
  /** The API's base (PINTEREST_API_URL): requests go to `${url}/v5/...`. */
  url: string;
  /** The consent page (PINTEREST_AUTHORIZE_URL): `${url}/oauth/`. */
  authorizeUrl: string;
  client: { clientId: string; clientSecret: string };
  account: { id: string; username: string };
  /** The account's boards, in the order GET /v5/boards lists them. */
  boards: Board[];
  /** How the person answers the consent screen: `consent` (redirect with a code) or `deny` (access_denied). */
  decision: 'consent' | 'deny';
  /** How long the access tokens issued from now on last. */
  accessTokenLifetimeSeconds: number;
  /** How long the refresh tokens issued from now on last (each refresh issues a new one). */
  refreshTokenLifetimeSeconds: number;
  pins: PinterestPin[];
  media: Map<string, PinterestMedia>;
  /** How many GET /v5/media/{id} answers say `processing` after the upload before `succeeded` (0: succeeded at once). */
  videoProcessingChecks: number;
  /** The next POST /v5/pins creates the pin, then the connection is dropped without an answer. */
  timeOutAfterNextPin: boolean;
  /** The refresh token that works now (each refresh rotates it); undefined before the first exchange. */
  currentRefreshToken(): string | undefined;
  /** Every refresh token that was rotated away and is refused from now on. */
  retiredRefreshTokens: string[];
  /** Grants an access token without the flow (adapter tests), with every scope unless told which. */
  issueAccessToken(lifetimeSeconds?: number, scopes?: string[]): string;
};

type ApiEndpoint = Exclude<PinterestEndpoint, 'authorize' | 'token' | 'media_upload'>;
type AccessToken = { expiresAt: number; scopes: Set<string> };
type Grant = { redirectUri: string; scopes: string[] };

// Each endpoint's operation in Pinterest's description, whose server is https://api.pinterest.com/v5: the scopes
// it requires are read from the operation's `security` (https://developers.pinterest.com/docs/api/v5/ shows them).
const operations: Record<ApiEndpoint, { method: string; template: string }> = {
  user_account: { method: 'GET', template: '/user_account' },
  boards: { method: 'GET', template: '/boards' },
  board: { method: 'GET', template: '/boards/{board_id}' },
  board_pins: { method: 'GET', template: '/boards/{board_id}/pins' },
  pins: { method: 'POST', template: '/pins' },
  media_register: { method: 'POST', template: '/media' },
  media_get: { method: 'GET', template: '/media/{media_id}' },
};

type Description = {
  paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
  components: { securitySchemes: { pinterest_oauth2: { flows: { authorizationCode: { scopes: Record<string, string> } } } } };
};

// Pinterest's own description of API v5 (test/fixtures/platform-apis/pinterest), read once per process: every /v5/
// request is checked against it, and the scopes each operation requires come from it.
let described: { contract: ApiContract; scopes: string[]; scopesOf: (endpoint: ApiEndpoint) => string[] } | undefined;
function description() {
  if (described) return described;
  const file = new URL('../fixtures/platform-apis/pinterest/openapi.json', import.meta.url).pathname;
  const document = JSON.parse(readFileSync(file, 'utf8')) as Description;
  described = {
    contract: loadOpenApiContract(file),
    scopes: Object.keys(document.components.securitySchemes.pinterest_oauth2.flows.authorizationCode.scopes),
    scopesOf: (endpoint) => {
      const { method, template } = operations[endpoint];
      const security = document.paths[template]?.[method.toLowerCase()]?.security ?? [];
      return security.find((requirement) => 'pinterest_oauth2' in requirement)?.pinterest_oauth2 ?? [];
    },
  };
  return described;
}

const error = (status: number, code: number, message: string): Reply => ({ status, body: { code, message } });
// Codes and messages from the examples in Pinterest's description (its `Error` and `Pinterest.Lib.Error` bodies):
// 1 for invalid parameters, 2 for a failed authentication (POST /oauth/token/revoke's 401), 3 for a token without
// the operation's scopes (answered 401, as POST /ad_accounts/{id}/msot/events documents and GET /v5/pins/{id} was seen
// to answer: https://github.com/pinterest/api-quickstart/issues/97), 29 for a resource the token may not touch, 8 for
// a rate limit (GET /pins/analytics's 429), 404 "Board not found." (GET /boards/{board_id}/pins's 404).
const invalidParameters = (message: string) => error(400, 1, message);
const authenticationFailed = error(401, 2, 'Authentication failed.');
const insufficientScopes = error(
  401,
  3,
  'Your token does not have sufficient permissions to perform this operation. Please ensure your token is authorized with the correct set of scopes.',
);
const notPermitted = error(403, 29, 'You are not permitted to access that resource.');
const boardNotFound = error(404, 404, 'Board not found.');
const rateLimited = error(
  429,
  8,
  'This request exceeded a rate limit. This can happen if the client exceeds one of the published rate limits or if multiple write operations are applied to an object within a short time window.',
);

function failure(status: number): Reply {
  if (status === 400) return invalidParameters('Invalid parameters.');
  if (status === 401) return authenticationFailed;
  if (status === 403) return notPermitted;
  if (status === 404) return error(404, 404, 'Not found.');
  // https://developers.pinterest.com/docs/reference/rate-limits/ names the categories and their windows but no
  // header: the fake sends a Retry-After or x-ratelimit-reset only when a test scripts one, so a connector must make
  // do with the 429 and its code.
  if (status === 429) return rateLimited;
  return error(status, status, `The fake answered ${status}`);
}

/** An S3 error (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html), its fields as JSON. */
const s3Error = (status: number, code: string, message: string): Reply => ({ status, body: { Code: code, Message: message } });

/** The body as the description's schema reads it: JSON parsed (text when it is not JSON), undefined when none came. */
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

/** The image type the bytes are (PNG or JPEG, the `ContentType` Pinterest's description allows), by their signature. */
function imageTypeOf(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return undefined;
}

/** Why base64 image data is no image of the content type it names, or undefined. */
function imageRefusal(field: string, data: unknown, contentType: unknown): string | undefined {
  if (typeof data !== 'string' || typeof contentType !== 'string') return `${field} needs its data and content type.`;
  const found = imageTypeOf(Buffer.from(data, 'base64'));
  if (!found) return `${field} is no PNG or JPEG image.`;
  return found === contentType ? undefined : `${field} is an ${found} image, not the ${contentType} its content type names.`;
}

const secret = (bytes = 32) => randomBytes(bytes).toString('base64url');
/** S3's date forms: 20260101T000000Z and 20260101. */
const amzDate = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startPinterestServer(): Promise<PinterestServer> {
  const { contract, scopes: allScopes, scopesOf } = description();
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  const uploadParameters = new Map<string, Record<string, string>>();
  /** The media whose processing will fail: S3 takes any bytes; Pinterest finds out it is no video afterwards. */
  const unplayable = new Set<string>();
  const bookmarks = new Map<string, { list: string; offset: number }>();
  let refresh: { token: string; expiresAt: number } | undefined;
  let lastId = 1_000_000_000_000_000_000n;
  const nextId = () => String((lastId += 1n));

  const scripted = await startScriptedServer<PinterestEndpoint, ScriptedResponse, PinterestRequest>({
    name: 'pinterest',
    rateLimitResetHeader: 'x-ratelimit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers, query: url.searchParams }),
    route,
    failure: (status) => failure(status),
  });
  const server: PinterestServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/oauth/`,
    client: { clientId: String(1_500_000 + Math.floor(Math.random() * 100_000)), clientSecret: randomBytes(20).toString('hex') },
    account: { id: '2783136121146311751', username: 'alice_pins' },
    boards: [
      { id: '549755885175', name: 'Spring collection', privacy: 'PUBLIC' },
      { id: '549755885176', name: 'Recipes', privacy: 'PUBLIC' },
      { id: '549755885177', name: 'Drafts', privacy: 'SECRET' },
    ],
    decision: 'consent',
    // https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/: access tokens
    // last 30 days, continuous refresh tokens 60 days (the description's POST /oauth/token note).
    accessTokenLifetimeSeconds: 30 * 86_400,
    refreshTokenLifetimeSeconds: 60 * 86_400,
    pins: [],
    media: new Map(),
    videoProcessingChecks: 1,
    timeOutAfterNextPin: false,
    currentRefreshToken: () => refresh?.token,
    retiredRefreshTokens: [],
    issueAccessToken: (lifetimeSeconds = server.accessTokenLifetimeSeconds, scopes = allScopes) => {
      // https://developers.pinterest.com/docs/developer-tools/token-debugger/: access tokens begin `pina_`, refresh tokens `pinr_`.
      const token = `pina_${secret()}`;
      accessTokens.set(token, { expiresAt: Date.now() + lifetimeSeconds * 1000, scopes: new Set(scopes) });
      return token;
    },
  };

  /**
   * https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/ (step 1): the
   * person consents and Pinterest redirects back with a code. Scopes are comma-separated. Pinterest documents no
   * PKCE: a `code_challenge` is ignored.
   */
  function authorize({ url }: Received): Reply {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== server.client.clientId) return invalidParameters('Invalid client_id.');
    if (!URL.canParse(redirectUri)) return invalidParameters('Invalid redirect_uri.');
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const scopes = (query.get('scope') ?? '').split(',').filter(Boolean);
    if (query.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
    else if (scopes.length === 0 || scopes.some((scope) => !allScopes.includes(scope))) back.searchParams.set('error', 'invalid_scope');
    else if (server.decision === 'deny') back.searchParams.set('error', 'access_denied');
    else {
      const code = secret(24);
      grants.set(code, { redirectUri, scopes });
      back.searchParams.set('code', code);
    }
    return { status: 302, body: {}, headers: { location: back.toString() } };
  }

  // https://github.com/pinterest/api-quickstart (nodejs/src/v5/access_token.js): "the scope returned in the response
  // includes all of the scopes that have been approved now or in the past by the user", and a refreshed token has them.
  let approvedScopes: string[] = [];
  function tokens(responseType: 'authorization_code' | 'refresh_token', scopes: string[]): Reply {
    const accessToken = server.issueAccessToken(server.accessTokenLifetimeSeconds, scopes);
    if (refresh) server.retiredRefreshTokens.push(refresh.token);
    refresh = { token: `pinr_${secret()}`, expiresAt: Date.now() + server.refreshTokenLifetimeSeconds * 1000 };
    // The description's OauthAccessTokenResponseCode and OauthAccessTokenResponseRefresh (which requires the three
    // refresh_token fields).
    return {
      status: 200,
      body: {
        access_token: accessToken,
        refresh_token: refresh.token,
        response_type: responseType,
        token_type: 'bearer',
        expires_in: server.accessTokenLifetimeSeconds,
        refresh_token_expires_in: server.refreshTokenLifetimeSeconds,
        refresh_token_expires_at: Math.floor(refresh.expiresAt / 1000),
        scope: scopes.join(','),
      },
    };
  }

  /**
   * POST /v5/oauth/token (https://developers.pinterest.com/docs/api/v5/oauth-token/): the client authenticates with
   * Basic, the body is a form (OauthAccessTokenRequestCode or OauthAccessTokenRequestRefresh in the description, which
   * the contract cannot check, as it reads JSON bodies only). A code is good once; each refresh rotates the refresh
   * token. `continuous_refresh` is taken and changes nothing: every refresh token here is a continuous one.
   */
  function token(received: Received): Reply {
    const expected = `Basic ${Buffer.from(`${server.client.clientId}:${server.client.clientSecret}`).toString('base64')}`;
    if (received.request.headers.authorization !== expected) return authenticationFailed;
    if (!(received.request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return invalidParameters('The request body must be application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(received.body.toString('utf8'));
    const fields = Object.fromEntries(form);
    // The form's fields stand for the body, so that the contract sees one came (its schema is the form's).
    const problems = contract.problemsOf({ method: 'POST', path: '/oauth/token', query: received.url.searchParams, json: fields });
    const required: Record<string, string[]> = {
      authorization_code: ['code', 'redirect_uri'],
      refresh_token: ['refresh_token'],
      client_credentials: ['scope'],
    };
    const grantType = fields.grant_type ?? '';
    if (!(grantType in required)) problems.push('body/grant_type must be one of authorization_code, refresh_token, client_credentials');
    for (const field of required[grantType] ?? []) if (!fields[field]) problems.push(`body must have required property '${field}'`);
    if (problems.length > 0) return invalidParameters(`Invalid parameters: ${problems.join('; ')}`);

    if (grantType === 'authorization_code') {
      const grant = grants.get(fields.code!);
      grants.delete(fields.code!);
      if (!grant || grant.redirectUri !== fields.redirect_uri) return invalidParameters('Invalid authorization code.');
      approvedScopes = [...new Set([...approvedScopes, ...grant.scopes])];
      return tokens('authorization_code', approvedScopes);
    }
    if (grantType === 'refresh_token') {
      if (!refresh || fields.refresh_token !== refresh.token || refresh.expiresAt <= Date.now()) return invalidParameters('Invalid refresh token.');
      const narrowed = fields.scope?.split(',').filter(Boolean);
      if (narrowed?.some((scope) => !approvedScopes.includes(scope))) return invalidParameters('Invalid scope: more than the user approved.');
      return tokens('refresh_token', narrowed ?? approvedScopes);
    }
    return invalidParameters('The fake grants no client_credentials tokens.');
  }

  /** A page of a list from `bookmark` (opaque; undefined when it is not one of this list's) of `page_size` items. */
  function pageOf<T>(list: string, items: T[], query: URLSearchParams): { items: T[]; bookmark: string | null } | undefined {
    const size = Number(query.get('page_size') ?? 25);
    const bookmark = query.get('bookmark');
    const from = bookmark ? bookmarks.get(bookmark) : { list, offset: 0 };
    if (!from || from.list !== list) return undefined;
    const end = from.offset + size;
    let next: string | null = null;
    if (end < items.length) {
      next = secret(18);
      bookmarks.set(next, { list, offset: end });
    }
    return { items: items.slice(from.offset, end), bookmark: next };
  }

  // https://developers.pinterest.com/docs/api/v5/boards-list/: the boards the token's scopes may see; secret ones
  // need boards:read_secret (the scope's description: "See your secret boards").
  const visible = (board: Board, token: AccessToken) => board.privacy !== 'SECRET' || token.scopes.has('boards:read_secret');
  const boardJson = (board: Board) => ({
    id: board.id,
    name: board.name,
    description: null,
    privacy: board.privacy,
    owner: { username: server.account.username },
  });

  /** https://developers.pinterest.com/docs/api/v5/user_account-get/ */
  function userAccount(): Reply {
    return {
      status: 200,
      body: {
        account_type: 'BUSINESS',
        id: server.account.id,
        username: server.account.username,
        profile_image: `https://i.pinimg.com/600x600_R/${server.account.id}.jpg`,
        website_url: 'https://content.example',
      },
    };
  }

  /** https://developers.pinterest.com/docs/api/v5/boards-list/, filtered by `privacy` (the description's BoardPrivacyFilter). */
  function listBoards({ url }: Received, token: AccessToken): Reply {
    const privacy = url.searchParams.get('privacy') ?? 'ALL';
    const wanted = (board: Board) => privacy === 'ALL' || board.privacy === privacy || (privacy === 'PUBLIC_AND_SECRET' && board.privacy !== 'PROTECTED');
    const page = pageOf(
      'boards',
      server.boards.filter((board) => visible(board, token) && wanted(board)),
      url.searchParams,
    );
    if (!page) return invalidParameters('Invalid bookmark.');
    return { status: 200, body: { items: page.items.map(boardJson), bookmark: page.bookmark } };
  }

  /** https://developers.pinterest.com/docs/api/v5/boards-get/ */
  function getBoard(boardId: string, token: AccessToken): Reply {
    const board = server.boards.find((candidate) => candidate.id === boardId);
    return board && visible(board, token) ? { status: 200, body: boardJson(board) } : boardNotFound;
  }

  function pinJson(pin: PinterestPin) {
    return {
      id: pin.id,
      created_at: pin.createdAt.toISOString(),
      board_id: pin.boardId,
      board_section_id: null,
      board_owner: { username: server.account.username },
      is_owner: true,
      is_standard: true,
      title: pin.title ?? null,
      description: pin.description ?? null,
      link: pin.link ?? null,
      alt_text: pin.altText ?? null,
      dominant_color: null,
      parent_pin_id: null,
      creative_type: pin.media.kind === 'video' ? 'VIDEO' : 'REGULAR',
      // The description's PinMediaWithVideo: its size and length "maybe null after creation due to video processing time".
      media: pin.media.kind === 'image' ? { media_type: 'image' } : { media_type: 'video', duration: null, height: null, width: null },
    };
  }

  /** https://developers.pinterest.com/docs/api/v5/boards-list_pins/: newest first. */
  function listBoardPins({ url }: Received, boardId: string, token: AccessToken): Reply {
    const board = server.boards.find((candidate) => candidate.id === boardId);
    if (!board || !visible(board, token)) return boardNotFound;
    const newestFirst = server.pins
      .map((pin, index) => ({ pin, index }))
      .filter(({ pin }) => pin.boardId === boardId)
      .sort((a, b) => b.pin.createdAt.getTime() - a.pin.createdAt.getTime() || b.index - a.index)
      .map(({ pin }) => pin);
    const page = pageOf(`board_pins ${boardId}`, newestFirst, url.searchParams);
    if (!page) return invalidParameters('Invalid bookmark.');
    return { status: 200, body: { items: page.items.map(pinJson), bookmark: page.bookmark } };
  }

  /**
   * https://developers.pinterest.com/docs/api/v5/pins-create/ and
   * https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/. The description requires no field
   * of PinCreate; the guide requires a board and a media source. A video Pin needs a cover (the guide's example sends
   * `cover_image_url`; PinMediaSourceVideoID offers it, `cover_image_key_frame_time` or `cover_image_data`) and a
   * media upload whose processing has succeeded. A secret board takes Pins with pins:write_secret only ("Create,
   * update, or delete your secret Pins").
   */
  function createPin(received: Received, token: AccessToken): Reply {
    const body = jsonBodyOf(received) as Record<string, unknown>;
    const source = body.media_source as Record<string, unknown> | undefined;
    if (typeof body.board_id !== 'string' || !source) return invalidParameters('Invalid parameters: a Pin needs a board_id and a media_source.');
    const board = server.boards.find((candidate) => candidate.id === body.board_id);
    if (!board || !visible(board, token)) return boardNotFound;
    if (board.privacy === 'SECRET' && !token.scopes.has('pins:write_secret')) return notPermitted;
    if (body.board_section_id) return error(404, 404, 'Board section not found.');

    let media: PinterestPin['media'];
    if (source.source_type === 'image_base64') {
      const refusal = imageRefusal('media_source.data', source.data, source.content_type);
      if (refusal) return invalidParameters(refusal);
      media = { kind: 'image', bytes: Buffer.from(source.data as string, 'base64'), contentType: source.content_type as string };
    } else if (source.source_type === 'video_id') {
      const upload = server.media.get(String(source.media_id));
      if (!upload) return invalidParameters(`Media ${String(source.media_id)} was never registered.`);
      if (upload.status !== 'succeeded') return invalidParameters(`Media ${upload.id} is ${upload.status}: a Pin takes it once its processing has succeeded.`);
      if (source.cover_image_data !== undefined) {
        const refusal = imageRefusal('media_source.cover_image_data', source.cover_image_data, source.cover_image_content_type);
        if (refusal) return invalidParameters(refusal);
      } else if (typeof source.cover_image_url !== 'string' && typeof source.cover_image_key_frame_time !== 'number') {
        return invalidParameters('A video Pin needs a cover: cover_image_url, cover_image_key_frame_time or cover_image_data.');
      }
      media = { kind: 'video', mediaId: upload.id };
    } else if (source.source_type === 'image_url') {
      return invalidParameters('The fake fetches no image_url: send the image as image_base64.');
    } else {
      return invalidParameters(`The fake takes media_source image_base64 or video_id, not ${String(source.source_type)}.`);
    }

    const text = (field: string) => {
      const value = body[field];
      return typeof value === 'string' ? value : undefined;
    };
    const pin: PinterestPin = {
      id: nextId(),
      boardId: board.id,
      title: text('title'),
      description: text('description'),
      link: text('link'),
      altText: text('alt_text'),
      createdAt: new Date(),
      media,
    };
    server.pins.push(pin);
    if (server.timeOutAfterNextPin) {
      server.timeOutAfterNextPin = false;
      // The Pin exists; its answer never comes.
      received.request.socket.destroy();
    }
    return { status: 201, body: pinJson(pin) };
  }

  /**
   * https://developers.pinterest.com/docs/api/v5/media-create/: the answer carries the S3 form to post the video with
   * (the description's MediaUpload and MediaUploadParameters; the guide's upload sends exactly these fields).
   */
  function registerMedia(): Reply {
    const media: PinterestMedia = { id: nextId(), status: 'registered', bytes: undefined, checksLeft: 0 };
    server.media.set(media.id, media);
    const now = new Date();
    const key = `uploads/${randomBytes(3)
      .toString('hex')
      .replace(/(..)(..)(..)/, '$1/$2/$3')}/${server.account.id}:video:${media.id}`;
    const policy = { expiration: new Date(now.getTime() + 3_600_000).toISOString(), conditions: [{ bucket: 'pinterest-media-upload' }, { key }] };
    const parameters = {
      'x-amz-date': amzDate(now),
      'x-amz-signature': randomBytes(32).toString('hex'),
      'x-amz-security-token': secret(48),
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      key,
      policy: Buffer.from(JSON.stringify(policy)).toString('base64'),
      'x-amz-credential': `ASIA${randomBytes(8).toString('hex').toUpperCase()}/${amzDate(now).slice(0, 8)}/us-east-1/s3/aws4_request`,
      'Content-Type': 'multipart/form-data',
    };
    uploadParameters.set(media.id, parameters);
    return {
      status: 201,
      body: { media_id: media.id, media_type: 'video', upload_url: `${server.url}/media-uploads/${media.id}`, upload_parameters: parameters },
    };
  }

  /**
   * The S3 form upload (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTForms.html): every field the
   * policy signs, with its exact value, then the file, last (S3 ignores the fields after it). The form carries its
   * own authentication, so S3 refuses another (an Authorization header). S3 takes any bytes: a file that is no MP4
   * fails at Pinterest's processing, which GET /v5/media/{id} reports.
   */
  async function uploadMedia(received: Received, mediaId: string): Promise<Reply> {
    if (received.request.headers.authorization !== undefined) {
      return s3Error(
        400,
        'InvalidArgument',
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      );
    }
    const media = server.media.get(mediaId);
    const expected = uploadParameters.get(mediaId);
    if (!media || !expected) return s3Error(403, 'AccessDenied', 'Access Denied');
    const parts = await multipartPartsOf(received);
    if (parts.length === 0) return s3Error(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
    const fileAt = parts.findIndex((part) => part.name === 'file');
    if (fileAt === -1) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
    const fields = parts.slice(0, fileAt);
    const extra = fields.filter((part) => !(part.name in expected));
    if (extra.length > 0) return s3Error(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${extra.map((part) => part.name).join(', ')}`);
    for (const [name, value] of Object.entries(expected)) {
      const sent = fields.find((part) => part.name === name)?.value;
      if (sent === value) continue;
      if (name === 'policy' || name === 'x-amz-signature') {
        return s3Error(
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        );
      }
      return s3Error(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ["eq", "$${name}", "${value}"]`);
    }
    const file = parts[fileAt]!;
    media.bytes = file.file?.bytes ?? Buffer.from(file.value ?? '');
    if (isMp4(media.bytes)) unplayable.delete(mediaId);
    else unplayable.add(mediaId);
    media.checksLeft = server.videoProcessingChecks;
    media.status = media.checksLeft > 0 ? 'processing' : unplayable.has(mediaId) ? 'failed' : 'succeeded';
    return { status: 204, body: {} };
  }

  /** https://developers.pinterest.com/docs/api/v5/media-get/: `processing` for as many checks as told, then the outcome. */
  function getMedia(mediaId: string): Reply {
    const media = server.media.get(mediaId);
    if (!media) return error(404, 404, 'Media not found.');
    if (media.status === 'processing') {
      if (media.checksLeft > 0) media.checksLeft -= 1;
      else media.status = unplayable.has(mediaId) ? 'failed' : 'succeeded';
    }
    return { status: 200, body: { media_id: media.id, media_type: 'video', status: media.status } };
  }

  function authorized(request: IncomingMessage): AccessToken | undefined {
    const header = request.headers.authorization ?? '';
    const found = header.startsWith('Bearer ') ? accessTokens.get(header.slice('Bearer '.length)) : undefined;
    return found && found.expiresAt > Date.now() ? found : undefined;
  }

  const handlers: Record<ApiEndpoint, (received: Received, parameter: string, token: AccessToken) => Reply | Promise<Reply>> = {
    user_account: () => userAccount(),
    boards: (received, _, token) => listBoards(received, token),
    board: (_, boardId, token) => getBoard(boardId, token),
    board_pins: (received, boardId, token) => listBoardPins(received, boardId, token),
    pins: (received, _, token) => createPin(received, token),
    media_register: () => registerMedia(),
    media_get: (_, mediaId) => getMedia(mediaId),
  };
  const apiRoutes = Object.entries(operations).map(([endpoint, { method, template }]) => ({
    endpoint: endpoint as ApiEndpoint,
    method,
    pattern: new RegExp(`^/v5${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
  }));

  function route(request: IncomingMessage, url: URL): Route<PinterestEndpoint> | Reply {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (method === 'GET' && path === '/oauth/') return { endpoint: 'authorize', handle: authorize };
    if (method === 'POST' && path === '/v5/oauth/token') return { endpoint: 'token', handle: token };
    const uploading = method === 'POST' ? /^\/media-uploads\/(\d+)$/.exec(path)?.[1] : undefined;
    if (uploading) return { endpoint: 'media_upload', handle: (received) => uploadMedia(received, uploading) };
    for (const { endpoint, method: routeMethod, pattern } of apiRoutes) {
      const match = method === routeMethod ? pattern.exec(path) : null;
      if (!match) continue;
      return {
        endpoint,
        handle: async (received) => {
          const found = authorized(request);
          if (!found) return authenticationFailed;
          if (scopesOf(endpoint).some((scope) => !found.scopes.has(scope))) return insufficientScopes;
          const problems = contract.problemsOf({ method, path: path.slice('/v5'.length), query: url.searchParams, json: jsonBodyOf(received) });
          if (problems.length > 0) return invalidParameters(`Invalid parameters: ${problems.join('; ')}`);
          return handlers[endpoint](received, decodeURIComponent(match[1] ?? ''), found);
        },
      };
    }
    return error(404, 404, `The fake has no ${method} ${path}.`);
  }

  return server;
}
