import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import sharp from 'sharp';
import {
  afterClientGivesUp,
  fieldsOf,
  formParamsOf,
  graphError,
  graphTime,
  invalidParameter,
  listPage,
  missingPermission,
  noSuchObject,
  pick,
  redirectWithCode,
  scriptedGraphError,
  timeParam,
  tokenHolder,
  tokenNamed,
  unservedField,
  type MetaToken,
} from './meta-graph-fake.ts';
import { isMp4, videoFactsOf } from './mp4.ts';
import { multipartPartsOf } from './multipart-parts.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Facebook's Graph API as a Page publisher uses it: Facebook Login (the dialog and the code
// exchange), long-lived user tokens, Page tokens, Page photo and text posts, and Page videos uploaded through the
// Resumable Upload API. Each endpoint follows its documentation page, linked at its handler. In production it is
// three hosts (the dialog on www.facebook.com, videos published on graph-video.facebook.com, the rest on
// graph.facebook.com); the fake serves them all from `url`, under any version prefix or none. Its errors are Graph
// API's (meta-graph-fake.ts, https://developers.facebook.com/docs/graph-api/guides/error-handling). Where the
// documentation is silent, the fake says so at the spot and does the least forgiving thing.

type FacebookEndpoint =
  | 'authorize'
  | 'token'
  | 'me'
  | 'accounts'
  | 'page'
  | 'photos'
  | 'feed'
  | 'feedList'
  | 'videoList'
  | 'uploadStart'
  | 'upload'
  | 'uploadStatus'
  | 'videos'
  | 'video'
  | 'object';

/** A scripted answer with a Graph error body: `code`, `subcode`, `message` override the status's usual ones. */
type FacebookScriptedResponse = ScriptedResponse & { code?: number; subcode?: number; message?: string };

type FacebookRequest = { method: string; path: string; query: URLSearchParams };

type FacebookPost = {
  /** `${pageId}_${n}`, the Page post id. */
  id: string;
  pageId: string;
  kind: 'photo' | 'text' | 'video';
  /** The post's text ('' when it has none): a photo's message, a video's description. */
  message: string;
  link?: string;
  /** The photo as Facebook took it; `contentType` is the format its bytes are in. */
  photo?: { bytes: Buffer; contentType: string };
  videoId?: string;
  title?: string;
  /** When it was posted, in ms. */
  createdAt: number;
  permalinkUrl: string;
};

type FacebookVideo = {
  id: string;
  pageId: string;
  title: string;
  description: string;
  bytes: Buffer;
  /** Status checks left that answer processing. */
  checksLeft: number;
  status: 'processing' | 'ready' | 'error';
  /** The post made when the video became ready. */
  postId?: string;
  createdAt: number;
};

type FacebookPage = { id: string; name: string; tasks: string[] };
type UploadSession = { fileName: string; fileLength: number; fileType: string; bytes: Buffer };
type Code = { redirectUri: string; expiresAt: number; used: boolean; scopes: string[] };

export type FacebookServer = ScriptedServer<FacebookEndpoint, FacebookScriptedResponse, FacebookRequest> & {
  /** `${url}/v24.0/dialog/oauth`: Facebook Login's dialog (www.facebook.com/v24.0/dialog/oauth in production). */
  authorizeUrl: string;
  app: { clientId: string; clientSecret: string };
  user: { id: string; name: string };
  /** The Pages the user manages; `tasks` as /me/accounts reports them (CREATE_CONTENT is what posting needs). */
  pages: FacebookPage[];
  /** Every post made on a Page (photo, text or video), newest last. */
  posts: FacebookPost[];
  /** Upload sessions of the Resumable Upload API, by the id Facebook gave (`upload:…`): received bytes so far. */
  uploads: Map<string, UploadSession>;
  /** Videos: their processing state. */
  videos: FacebookVideo[];
  /** How many status checks of a new video answer processing before ready (the post is made when ready). */
  videoProcessingChecks: number;
  /** Total bytes received by upload POSTs (for "bytes sent" assertions). */
  bytesReceivedTotal(): number;
  /** Keeps the next upload POST's bytes but drops the connection before answering, once. */
  dropAnswerOfNextUpload(): void;
  /** Makes the next `count` post-creating requests (photos, feed, videos) take effect and answer only after the client gave up (as Threads' `timeOutAfterPublishing`). */
  timeOutAfterPosting: number;
  /** A user token as Facebook would issue it: short-lived (an hour) or long-lived (60 days), with every permission we ask for unless told which. */
  issueUserToken(kind: 'short' | 'long', scopes?: readonly string[]): string;
  /** The Page token /me/accounts would give for a long-lived user token (it never expires). */
  pageToken(pageId: string): string;
  expire(token: string): void;
};

// https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived: "Default User and Page
// access tokens are short-lived, expiring in hours"; the access tokens guide says "about an hour or two", so the fake
// takes an hour. A long-lived user token lasts "about 60 days" (the exchange's sample answers expires_in 5183944).
const hourMs = 60 * 60 * 1000;
const lifetimeMs = { short: hourMs, long: 60 * 24 * hourMs };
// The manual-flow page does not say how long a code lasts: ten minutes, RFC 6749 §4.1.2's recommended most.
const codeLifetimeMs = 10 * 60_000;

const showList = 'pages_show_list';
const managePosts = 'pages_manage_posts';
const readEngagement = 'pages_read_engagement';
const allPermissions = [showList, managePosts, readEngagement];
// https://developers.facebook.com/docs/permissions: the Login permissions a Page publisher might ask for; any other
// name is refused as Facebook's dialog refuses it ("Invalid Scopes").
const knownScopes = new Set([
  'public_profile',
  'email',
  showList,
  managePosts,
  readEngagement,
  'pages_manage_engagement',
  'pages_read_user_content',
  'pages_manage_metadata',
  'publish_video',
  'business_management',
]);
// The permissions each endpoint requires, from its reference's Requirements: /{user-id}/accounts
// (https://developers.facebook.com/docs/graph-api/reference/user/accounts), Page photos
// (https://developers.facebook.com/docs/graph-api/reference/page/photos/#Creating), Page feed
// (https://developers.facebook.com/docs/graph-api/reference/page/feed), Page videos
// (https://developers.facebook.com/docs/graph-api/reference/page/videos: pages_manage_posts, pages_read_engagement and
// pages_show_list, with the CREATE_CONTENT task). The Posts guide (https://developers.facebook.com/docs/pages-api/posts)
// asks for more (pages_manage_engagement, pages_read_user_engagement, and the MANAGE and MODERATE tasks), for every
// call it describes, replies and deletions included: the fake follows each endpoint's own reference. The Resumable
// Upload API needs no permission ("No specific Facebook Login Permissions are required to use the file upload part").
const permissionsNeeded: Partial<Record<FacebookEndpoint, string[]>> = {
  accounts: [showList],
  page: [showList, readEngagement],
  photos: [managePosts, readEngagement],
  feed: [managePosts, readEngagement],
  videos: [managePosts, readEngagement, showList],
  feedList: [readEngagement],
  videoList: [readEngagement],
  video: [readEngagement],
  object: [readEngagement],
};
const postingEndpoints = new Set<FacebookEndpoint>(['photos', 'feed', 'videos']);

// https://developers.facebook.com/docs/graph-api/reference/page/photos/#Creating: "Facebook supports the following
// formats: JPEG, BMP, PNG, GIF, TIFF" and "Files must be 4MB or smaller in size" (MB read as 10^6 bytes, the smaller).
const maxPhotoBytes = 4_000_000;
// The Page feed reference names no length limit for `message`; 63,206 characters is the limit Facebook is known for
// (UTF-16 units here, the most an emoji can count).
const maxMessage = 63_206;
// https://developers.facebook.com/docs/video-api/reference/error-codes (Session Initialization Phase): "The maximum
// size for a video is 2 GB" (subcode 1363023, read as 10^9 bytes) and "The minimum size for a video is 1 KB" (subcode
// 1363022, read as 1024). Meta's ads specs allow 10 GB and 240 minutes; the developer page's 2 GB is the stricter, so
// the fake takes it, and the 240 minutes, which no developer page states otherwise.
const videoBytes = { min: 1024, max: 2_000_000_000 };
const maxVideoSeconds = 240 * 60;
// https://developers.facebook.com/docs/graph-api/guides/upload: file_type's "Valid values".
const uploadFileTypes = new Set(['application/pdf', 'image/jpeg', 'image/jpg', 'image/png', 'video/mp4']);

/** A Page write with a token that cannot post there: a user token, another Page's, or a person without CREATE_CONTENT (the posts guide names no error; this is Graph API's for it). */
const postingRefused = () =>
  graphError(403, {
    code: 200,
    message: '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
  });
/** A Page read with a user token: the pages ask for a Page token; code 210 is Graph API's for it. */
const pageTokenRequired = () => graphError(403, { code: 210, message: '(#210) A page access token is required to request this resource.' });
/** A photo Facebook cannot take. The photo reference lists no error; 324 is Graph API's code for a missing or invalid image file. */
const photoRefused = (message: string) => graphError(400, { code: 324, message: `(#324) ${message}` });
/** A Page token where a user's is needed (the pages name no error for it: refused as a token that will not do). */
const notAUserToken = () => graphError(400, { code: 190, message: 'Invalid OAuth access token: a User access token is required' });
/** A parameter the fake does not model: refused rather than ignored, so that a test finds out. */
const notModelled = (name: string) => invalidParameter(`The Facebook fake does not model ${name}`);

/** The image format of the bytes, by their signature, among those the photo reference lists; undefined for any other. */
function photoFormatOf(bytes: Buffer): string | undefined {
  const starts = (...signature: number[]) => bytes.subarray(0, signature.length).equals(Buffer.from(signature));
  const startsWith = (text: string) => bytes.subarray(0, text.length).toString('latin1') === text;
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (startsWith('GIF87a') || startsWith('GIF89a')) return 'image/gif';
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'image/tiff';
  // A BMP: "BM", its file size, and a DIB header of a known size.
  if (startsWith('BM') && bytes.length >= 26 && [12, 40, 52, 56, 64, 108, 124].includes(bytes.readUInt32LE(14))) return 'image/bmp';
  return undefined;
}

/** A path segment decoded, or as it came when it does not decode. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether the image decodes (sharp reads every listed format but BMP, whose header `photoFormatOf` checked). */
async function decodes(bytes: Buffer, format: string): Promise<boolean> {
  if (format === 'image/bmp') return true;
  try {
    const { width, height } = await sharp(bytes).metadata();
    return Boolean(width && height);
  } catch {
    return false;
  }
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startFacebookServer(): Promise<FacebookServer> {
  const tokens = new Map<string, MetaToken>();
  const codes = new Map<string, Code>();
  /** Each upload session's owner (the app-scoped user id) and, once complete, its file handle. */
  const sessionOwners = new Map<string, string>();
  const handles = new Map<string, { session: string; userId: string }>();
  /** Photo ids and the post each made. */
  const photos = new Map<string, string>();
  /** Why processing failed a video in error. */
  const videoErrors = new Map<string, string>();
  let lastId = 122_000_000_000_000_000n;
  const nextId = () => String((lastId += 1n));
  let receivedTotal = 0;
  let dropsPending = 0;

  const scripted = await startScriptedServer<FacebookEndpoint, FacebookScriptedResponse, FacebookRequest>({
    name: 'facebook',
    // Pages API calls are rate limited per Page and app (Business Use Case limits), whose state travels in
    // X-Business-Use-Case-Usage (https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits):
    // a script's `rateLimitReset` is that header's JSON.
    rateLimitResetHeader: 'x-business-use-case-usage',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams }),
    route,
    failure: (status, failure) => scriptedGraphError(status, failure),
  });
  const server: FacebookServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/v24.0/dialog/oauth`,
    app: { clientId: '1234567890123456', clientSecret: randomBytes(16).toString('hex') },
    user: { id: '10160000000000001', name: 'Alice Example' },
    pages: [{ id: '61550000000000001', name: 'Alice Bakes', tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'] }],
    posts: [],
    uploads: new Map(),
    videos: [],
    videoProcessingChecks: 1,
    timeOutAfterPosting: 0,
    bytesReceivedTotal: () => receivedTotal,
    dropAnswerOfNextUpload: () => {
      dropsPending += 1;
    },
    issueUserToken: (kind, scopes = allPermissions) => mint({ kind, scopes: new Set(scopes), expiresAt: Date.now() + lifetimeMs[kind] }),
    pageToken(pageId) {
      if (!server.pages.some((page) => page.id === pageId)) throw new Error(`The user manages no Page ${pageId}`);
      return mint({ kind: 'long', scopes: new Set(allPermissions), expiresAt: Infinity, pageId });
    },
    expire(token) {
      const found = tokens.get(token);
      if (found) found.expiresAt = Date.now() - 1;
    },
  };

  function mint({ kind, scopes, expiresAt, pageId }: Pick<MetaToken, 'kind' | 'scopes' | 'expiresAt' | 'pageId'>): string {
    const token = `EAA${randomBytes(32).toString('base64url')}`;
    tokens.set(token, { kind, userId: server.user.id, issuedAt: Date.now(), expiresAt, scopes, pageId });
    return token;
  }

  /**
   * A Page token for the user token: from a long-lived user token it does not expire
   * (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived#long-lived-page-token);
   * from a short-lived one it is short-lived too ("These Page access tokens are valid for 1 hour",
   * https://developers.facebook.com/docs/business-sdk/common-scenarios/token-switch), so it ends when the user token does.
   */
  const pageTokenFor = (user: MetaToken, pageId: string) =>
    mint({ kind: user.kind, scopes: new Set(user.scopes), expiresAt: user.kind === 'long' ? Infinity : user.expiresAt, pageId });

  // https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow (the Login Dialog): the person
  // approves every asked permission at once; the code comes back on redirect_uri with the state, and Facebook
  // appends "#_=_". `scope` is "a comma or space separated list"; response_type defaults to code (token and the
  // others are not modelled). The dialog shows its refusals as a page; the fake answers them as Graph errors.
  function authorize({ url }: Received): Reply {
    const params = url.searchParams;
    if (params.get('client_id') !== server.app.clientId) return invalidParameter('Invalid App ID: the app is not known');
    const responseType = params.get('response_type') ?? 'code';
    if (responseType !== 'code') return notModelled(`response_type=${responseType}`);
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!URL.canParse(redirectUri)) return invalidParameter('redirect_uri is not a valid URL');
    const scopes = (params.get('scope') ?? '').split(/[ ,]/).filter(Boolean);
    const unknown = scopes.filter((scope) => !knownScopes.has(scope));
    if (unknown.length > 0) return invalidParameter(`Invalid Scopes: ${unknown.join(', ')}`);
    const code = `AQ${randomBytes(32).toString('base64url')}`;
    codes.set(code, { redirectUri, expiresAt: Date.now() + codeLifetimeMs, used: false, scopes });
    return redirectWithCode(redirectUri, code, params.get('state'), '_=_');
  }

  // GET /oauth/access_token serves both exchanges: the code's (manual flow) and a user token's for a long-lived one.
  // The pages show GET only: the fake takes no POST.
  function accessToken(received: Received): Reply {
    const params = received.url.searchParams;
    if (params.get('client_id') !== server.app.clientId)
      return graphError(400, { code: 101, message: 'Error validating application. Invalid application ID.' });
    if (params.get('client_secret') !== server.app.clientSecret) return graphError(400, { code: 1, message: 'Error validating client secret.' });
    const grantType = params.get('grant_type');
    if (grantType === 'fb_exchange_token') return exchangeToken(params);
    if (grantType !== null) return invalidParameter(`Unsupported grant_type ${grantType}`);
    return exchangeCode(params);
  }

  // https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow#exchangecode: `{access_token,
  // token_type, expires_in}`; redirect_uri "must be the same as the original request_uri". The page documents no
  // error answers, nor that a code serves once (OAuth codes do, RFC 6749 §4.1.2): these are Graph errors, code 100.
  // Codes from the dialog give short-lived tokens ("Default User ... access tokens are short-lived").
  function exchangeCode(params: URLSearchParams): Reply {
    const code = codes.get(params.get('code') ?? '');
    if (!code) return invalidParameter('Invalid verification code format.');
    if (code.used) return invalidParameter('This authorization code has been used.');
    if (code.expiresAt <= Date.now()) return invalidParameter('This authorization code has expired.');
    if (params.get('redirect_uri') !== code.redirectUri)
      return invalidParameter(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      );
    code.used = true;
    const token = server.issueUserToken('short', code.scopes);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: lifetimeMs.short / 1000 } };
  }

  // https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived#get-a-long-lived-user-access-token:
  // "A valid User Access Token" (not an expired one), the app id and secret; the long-lived token keeps the
  // permissions granted. A Page token is no user token.
  function exchangeToken(params: URLSearchParams): Reply {
    const holder = tokenNamed(tokens, params.get('fb_exchange_token') ?? '');
    if ('status' in holder) return holder;
    if (holder.pageId !== undefined) return notAUserToken();
    const token = server.issueUserToken('long', [...holder.scopes]);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: lifetimeMs.long / 1000 } };
  }

  const pageOf = (id: string) => server.pages.find((page) => page.id === id);

  // https://developers.facebook.com/docs/graph-api/reference/user: the fields asked (id and name by default). /me is
  // the node of the token's holder (https://developers.facebook.com/docs/graph-api/overview#me): with a Page token, the Page.
  function me(received: Received, holder: MetaToken): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id', 'name']);
    const page = holder.pageId === undefined ? undefined : pageOf(holder.pageId);
    if (page) return unservedField(fields, ['id', 'name'], 'Page') ?? { status: 200, body: pick({ id: page.id, name: page.name }, fields) };
    return unservedField(fields, ['id', 'name'], 'User') ?? { status: 200, body: pick({ ...server.user }, fields) };
  }

  // https://developers.facebook.com/docs/pages-api/getting-started#get-your-page-access-token and
  // https://developers.facebook.com/docs/graph-api/reference/user/accounts: the Pages the person can perform a task on,
  // each with a Page token, in `data` with `paging`.
  function accounts(received: Received, holder: MetaToken): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id', 'name', 'access_token', 'tasks']);
    const refused = unservedField(fields, ['id', 'name', 'access_token', 'tasks'], 'Page');
    if (refused) return refused;
    return listPage(received.url, server.pages, (page) =>
      pick(
        { id: page.id, name: page.name, access_token: fields.includes('access_token') ? pageTokenFor(holder, page.id) : undefined, tasks: [...page.tasks] },
        fields,
      ),
    );
  }

  // https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived#long-lived-page-token
  // (GET /{page-id}?fields=access_token with a user token) and https://developers.facebook.com/docs/graph-api/reference/page.
  // With the Page's own token, its access_token is that token.
  function readPage(received: Received, holder: MetaToken, page: FacebookPage, token: string): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id', 'name']);
    const refused = unservedField(fields, ['id', 'name', 'access_token'], 'Page');
    if (refused) return refused;
    if (holder.pageId !== undefined && holder.pageId !== page.id) return missingPermission();
    const pageToken = () => (holder.pageId === page.id ? token : pageTokenFor(holder, page.id));
    return { status: 200, body: pick({ id: page.id, name: page.name, access_token: fields.includes('access_token') ? pageToken() : undefined }, fields) };
  }

  /** Makes the post, now. */
  function addPost(post: Omit<FacebookPost, 'id' | 'createdAt' | 'permalinkUrl'>): FacebookPost {
    const id = `${post.pageId}_${nextId()}`;
    // https://developers.facebook.com/docs/pages-api/posts#page-post-urls: "The URL, or permalink, for a Page post is
    // https://www.facebook.com/page_post_id" (the fake's host in place of Facebook's).
    const made: FacebookPost = { id, ...post, createdAt: Date.now(), permalinkUrl: `${server.url}/${id}` };
    server.posts.push(made);
    return made;
  }

  /** The answer to a post-creating request, held until the client gave up while `timeOutAfterPosting` says so. */
  async function answerAfterPosting(received: Received, reply: Reply): Promise<Reply> {
    if (server.timeOutAfterPosting > 0) {
      server.timeOutAfterPosting -= 1;
      await afterClientGivesUp(received.request);
    }
    return reply;
  }

  /** `published`: true (the default) or false; an unpublished or scheduled post is not modelled. */
  function publishedRefusal(params: URLSearchParams): Reply | undefined {
    const published = params.get('published');
    if (published !== null && published !== 'true' && published !== 'false') return invalidParameter('Param published must be a boolean');
    if (published === 'false' || params.has('scheduled_publish_time')) return notModelled('unpublished or scheduled posts');
    return undefined;
  }

  function messageRefusal(message: string): Reply | undefined {
    return message.length > maxMessage ? invalidParameter(`(#100) Param message must be at most ${maxMessage} characters long`) : undefined;
  }

  /** The photo: the multipart `source` file, or fetched from `url` (one of the two, not both: the reference does not say, so both is refused). */
  async function photoBytesOf(received: Received, params: URLSearchParams): Promise<Buffer | Reply> {
    const source = (await multipartPartsOf(received)).find((part) => part.name === 'source');
    const url = params.get('url');
    if (source && url !== null) return invalidParameter('Send the photo as source or url, not both');
    if (source) return source.file ? source.file.bytes : photoRefused('Missing or invalid image file: source must be a file');
    if (url === null) return photoRefused('Requires upload file');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) return photoRefused(`Missing or invalid image file: ${url} answered ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    } catch {
      return photoRefused(`Missing or invalid image file: ${url} could not be fetched`);
    }
  }

  // https://developers.facebook.com/docs/pages-api/posts#publish-a-photo and
  // https://developers.facebook.com/docs/graph-api/reference/page/photos/#Creating: `source` (multipart) or `url`, the
  // text in `message` (`caption`, the reference's other name for it, is taken too, but not both), answered `{id,
  // post_id}`. The photo's bytes decide its format, not the part's content type.
  async function postPhoto(received: Received, page: FacebookPage, params: URLSearchParams): Promise<Reply> {
    const refused = publishedRefusal(params);
    if (refused) return refused;
    if (params.has('message') && params.has('caption')) return invalidParameter('Send the text as message or caption, not both');
    if (params.has('attached_media') || params.has('temporary')) return notModelled('attached_media and temporary photos');
    const message = params.get('message') ?? params.get('caption') ?? '';
    const tooLong = messageRefusal(message);
    if (tooLong) return tooLong;
    const bytes = await photoBytesOf(received, params);
    if (!Buffer.isBuffer(bytes)) return bytes;
    if (bytes.length > maxPhotoBytes) return photoRefused(`The photo is ${bytes.length} bytes: files must be 4MB or smaller in size`);
    const contentType = photoFormatOf(bytes);
    if (!contentType || !(await decodes(bytes, contentType))) return photoRefused('Missing or invalid image file: JPEG, BMP, PNG, GIF or TIFF only');
    const post = addPost({ pageId: page.id, kind: 'photo', message, photo: { bytes, contentType } });
    const photoId = nextId();
    photos.set(photoId, post.id);
    return answerAfterPosting(received, { status: 200, body: { id: photoId, post_id: post.id } });
  }

  // https://developers.facebook.com/docs/pages-api/posts#publish-posts: `message` and, to post a link, `link`;
  // answered `{id}`. A post with neither is refused (the page does not say how).
  async function postToFeed(received: Received, page: FacebookPage, params: URLSearchParams): Promise<Reply> {
    const refused = publishedRefusal(params);
    if (refused) return refused;
    for (const name of ['attached_media', 'targeting', 'feed_targeting', 'place', 'tags']) if (params.has(name)) return notModelled(name);
    const message = params.get('message') ?? '';
    const link = params.get('link') ?? undefined;
    if (!message && !link) return invalidParameter('(#100) A post needs a message or a link');
    if (link !== undefined && !(/^https?:\/\//i.test(link) && URL.canParse(link))) return invalidParameter('(#100) Param link must be a valid URL');
    const tooLong = messageRefusal(message);
    if (tooLong) return tooLong;
    const post = addPost({ pageId: page.id, kind: 'text', message, ...(link === undefined ? {} : { link }) });
    return answerAfterPosting(received, { status: 200, body: { id: post.id } });
  }

  /** The upload request's token: "You must include the access token in the header or the call will fail" (Authorization: OAuth), and a user's. */
  function uploaderOf(request: IncomingMessage): MetaToken | Reply {
    const token = /^OAuth (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const holder = tokenNamed(tokens, token);
    return !('status' in holder) && holder.pageId !== undefined ? notAUserToken() : holder;
  }

  const sessionOf = (id: string, holder: MetaToken): UploadSession | Reply => {
    const session = server.uploads.get(id);
    return session && sessionOwners.get(id) === holder.userId ? session : noSuchObject(id);
  };

  // https://developers.facebook.com/docs/graph-api/guides/upload, Step 1: POST /{app-id}/uploads with file_name,
  // file_length, file_type (one of the valid values) and a User access token; answered `{id: "upload:<id>"}`. A
  // video's declared size is checked here against the Video API's session limits (1 KB to 2 GB).
  function startUpload(received: Received, holder: MetaToken, params: URLSearchParams, appId: string): Reply {
    if (appId !== server.app.clientId) return noSuchObject(appId);
    if (holder.pageId !== undefined) return notAUserToken();
    const fileName = params.get('file_name') ?? '';
    const fileLength = Number(params.get('file_length') ?? NaN);
    const fileType = params.get('file_type') ?? '';
    if (!fileName) return invalidParameter('(#100) The parameter file_name is required');
    if (!Number.isSafeInteger(fileLength) || fileLength < 1) return invalidParameter('(#100) Param file_length must be a positive integer');
    if (!uploadFileTypes.has(fileType)) return invalidParameter(`(#100) Param file_type must be one of ${[...uploadFileTypes].join(', ')}`);
    if (fileType === 'video/mp4' && fileLength > videoBytes.max)
      return graphError(400, { code: 100, subcode: 1363023, message: 'The video you tried to upload is too large. The maximum size for a video is 2 GB.' });
    if (fileType === 'video/mp4' && fileLength < videoBytes.min)
      return graphError(400, { code: 100, subcode: 1363022, message: 'The video you tried to upload is too small. The minimum size for a video is 1 KB.' });
    const id = `upload:${Buffer.from(`1:${randomBytes(18).toString('base64url')}`).toString('base64url')}`;
    server.uploads.set(id, { fileName, fileLength, fileType, bytes: Buffer.alloc(0) });
    sessionOwners.set(id, holder.userId);
    return { status: 200, body: { id } };
  }

  /** The file handle of a complete upload (made once, the same for every answer that gives it). */
  function handleOf(id: string, userId: string): string {
    for (const [handle, of] of handles) if (of.session === id) return handle;
    const handle = `2:${Buffer.from(`${id}:${randomBytes(12).toString('hex')}`).toString('base64url')}`;
    handles.set(handle, { session: id, userId });
    return handle;
  }

  // https://developers.facebook.com/docs/graph-api/guides/upload, Step 2 and "Resume an interrupted upload": POST
  // /upload:<id> with `Authorization: OAuth <user token>`, a `file_offset` header and the bytes; "On success, your
  // app receives the file handle", `{h}`. An interrupted upload is resumed from the offset GET answers, with the rest
  // of the bytes. The guide does not say what a POST answers that leaves the file incomplete: the fake keeps the
  // bytes and answers as the GET does, `{id, file_offset}`, without a handle, which it gives only once the file is
  // whole (to a POST at the end offset with no bytes, too, the way a resumed upload would finish). An offset other
  // than the bytes received so far, or bytes past the declared length, are refused and nothing is kept (the guide is
  // silent; subcode 1363037 is the Video API's "invalid start offset").
  function upload(received: Received, id: string): Reply {
    const { request, body } = received;
    receivedTotal += body.length;
    const holder = uploaderOf(request);
    if ('status' in holder) return holder;
    const session = sessionOf(id, holder);
    if ('status' in session) return session;
    const offsetHeader = request.headers.file_offset;
    const offset = typeof offsetHeader === 'string' && /^\d+$/.test(offsetHeader) ? Number(offsetHeader) : NaN;
    if (Number.isNaN(offset)) return invalidParameter('(#100) The file_offset header is required: the byte offset this request starts at');
    if (offset !== session.bytes.length)
      return graphError(400, {
        code: 100,
        subcode: 1363037,
        message: `(#100) file_offset ${offset} is not where the upload stands: resume from file_offset ${session.bytes.length}`,
      });
    if (offset + body.length > session.fileLength)
      return invalidParameter(`(#100) The bytes run past file_length ${session.fileLength} (offset ${offset}, ${body.length} bytes)`);
    session.bytes = Buffer.concat([session.bytes, body]);
    if (dropsPending > 0) {
      dropsPending -= 1;
      // The bytes are kept; the answer never comes.
      request.socket.destroy();
    }
    if (session.bytes.length < session.fileLength) return { status: 200, body: { id, file_offset: session.bytes.length } };
    return { status: 200, body: { h: handleOf(id, holder.userId) } };
  }

  // https://developers.facebook.com/docs/graph-api/guides/upload#resume-an-interrupted-upload: GET /upload:<id> with
  // the OAuth header, answered `{id, file_offset}`. The current page's sample quotes the offset's placeholder; the
  // guide's earlier version defines it as "An integer that indicates the number of bytes that have been successfully
  // uploaded" (its sample: 5238), which the fake answers.
  function uploadStatus(received: Received, id: string): Reply {
    const holder = uploaderOf(received.request);
    if ('status' in holder) return holder;
    const session = sessionOf(id, holder);
    return 'status' in session ? session : { status: 200, body: { id, file_offset: session.bytes.length } };
  }

  // https://developers.facebook.com/docs/video-api/guides/publishing: POST /{page-id}/videos (graph-video.facebook.com
  // in production) with title, description and `fbuploader_video_file_chunk`, the Resumable Upload API's handle;
  // answered `{id}`, the video's. The guide does not say what a handle used twice does: the fake makes another video,
  // so that a test sees a duplicate its connector would cause. Other ways in (source, file_url, the chunked
  // upload_phase) are not modelled.
  async function postVideo(received: Received, page: FacebookPage, params: URLSearchParams): Promise<Reply> {
    for (const name of ['source', 'file_url', 'upload_phase', 'scheduled_publish_time']) if (params.has(name)) return notModelled(name);
    if (params.get('published') === 'false') return notModelled('unpublished videos');
    const handle = handles.get(params.get('fbuploader_video_file_chunk') ?? '');
    const session = handle ? server.uploads.get(handle.session) : undefined;
    if (!handle || !session || handle.userId !== server.user.id) return invalidParameter('(#100) Param fbuploader_video_file_chunk is not a valid file handle');
    const video: FacebookVideo = {
      id: nextId(),
      pageId: page.id,
      title: params.get('title') ?? '',
      description: params.get('description') ?? '',
      bytes: session.bytes,
      checksLeft: server.videoProcessingChecks,
      status: 'processing',
      createdAt: Date.now(),
    };
    server.videos.push(video);
    return answerAfterPosting(received, { status: 200, body: { id: video.id } });
  }

  /** Why processing fails the video: bytes that are no MP4 video (mp4.ts reads them as processing would), or longer than 240 minutes. */
  function processingError(video: FacebookVideo): string | undefined {
    const facts = isMp4(video.bytes) ? videoFactsOf(video.bytes) : undefined;
    if (!facts) return 'The video file is not in a format Facebook supports (MP4).';
    if (facts.seconds > maxVideoSeconds) return `The video is ${Math.round(facts.seconds / 60)} minutes long: at most 240 minutes.`;
    return undefined;
  }

  /** One status check of the video: it is processing for `videoProcessingChecks` checks, then ready (and posted) or failed. */
  function checkProcessing(video: FacebookVideo): void {
    if (video.status !== 'processing') return;
    if (video.checksLeft > 0) {
      video.checksLeft -= 1;
      return;
    }
    const failed = processingError(video);
    if (failed) {
      video.status = 'error';
      videoErrors.set(video.id, failed);
      return;
    }
    video.status = 'ready';
    const post = addPost({ pageId: video.pageId, kind: 'video', message: video.description, videoId: video.id, title: video.title });
    video.postId = post.id;
  }

  // https://developers.facebook.com/docs/graph-api/reference/video-status/ defines `video_status` ("ready",
  // "processing" or "error") and `processing_progress` (0 to 100); the phases are the Reels guide's
  // (https://developers.facebook.com/docs/video-api/guides/reels-publishing#get-the-upload-status): uploading_phase,
  // processing_phase (with its error), publishing_phase (publish_status, publish_time).
  function statusJson(video: FacebookVideo): Record<string, unknown> {
    const error = videoErrors.get(video.id);
    const post = server.posts.find((candidate) => candidate.id === video.postId);
    return {
      video_status: video.status,
      processing_progress: video.status === 'processing' ? 50 : 100,
      uploading_phase: { status: 'complete' },
      processing_phase:
        video.status === 'processing'
          ? { status: 'in_progress' }
          : video.status === 'ready'
            ? { status: 'complete' }
            : { status: 'error', error: { message: error } },
      publishing_phase: post
        ? { status: 'complete', publish_status: 'published', publish_time: Math.floor(post.createdAt / 1000) }
        : { status: 'not_started', publish_status: 'not_published' },
    };
  }

  // https://developers.facebook.com/docs/graph-api/reference/video/: a read asking for `status` is one status check.
  // The reference says only that permalink_url is the video's permanent URL; Facebook answers it relative to
  // www.facebook.com, as the fake does (a client must make it absolute).
  function readVideo(received: Received, video: FacebookVideo): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id']);
    const refused = unservedField(fields, ['id', 'title', 'description', 'status', 'permalink_url'], 'Video');
    if (refused) return refused;
    if (fields.includes('status')) checkProcessing(video);
    const all = {
      id: video.id,
      title: video.title || undefined,
      description: video.description || undefined,
      status: statusJson(video),
      permalink_url: `/${video.pageId}/videos/${video.id}/`,
    };
    return { status: 200, body: pick(all, fields) };
  }

  const postFields = ['id', 'message', 'created_time', 'updated_time', 'permalink_url', 'from', 'is_published'];

  // https://developers.facebook.com/docs/graph-api/reference/pagepost: the fields the fake serves; `message` is left
  // out of a post that has none, as Graph API leaves out an absent field.
  function postJson(post: FacebookPost, fields: readonly string[]): Record<string, unknown> {
    const page = pageOf(post.pageId);
    const all = {
      id: post.id,
      message: post.message || undefined,
      created_time: graphTime(post.createdAt),
      updated_time: graphTime(post.createdAt),
      permalink_url: post.permalinkUrl,
      from: { id: post.pageId, name: page?.name },
      is_published: true,
    };
    return pick(all, fields);
  }

  // https://developers.facebook.com/docs/graph-api/reference/page/feed#read and
  // https://developers.facebook.com/docs/pages-api/posts#get-posts: the Page's posts, newest first, `since` and
  // `until` as Unix times or dates, in pages with cursors (25 a page unless `limit` says).
  function listFeed(received: Received, page: FacebookPage): Reply {
    const params = received.url.searchParams;
    const fields = fieldsOf(params, ['id', 'message', 'created_time']);
    const refused = unservedField(fields, postFields, 'Post');
    if (refused) return refused;
    const since = timeParam(params, 'since') ?? -Infinity;
    const until = timeParam(params, 'until') ?? Infinity;
    if ([since, until].some(Number.isNaN)) return invalidParameter('Params since and until must be Unix timestamps or dates');
    const matching = server.posts
      .filter((post) => post.pageId === page.id && post.createdAt >= since && post.createdAt <= until)
      .reverse()
      .sort((a, b) => b.createdAt - a.createdAt);
    return listPage(received.url, matching, (post) => postJson(post, fields));
  }

  // https://developers.facebook.com/docs/graph-api/reference/page/videos#reading: the Page's videos, newest first,
  // those still processing too (the reference lists every video the Page uploaded; it does not say otherwise), with
  // `since` as the feed takes it.
  function listVideos(received: Received, page: FacebookPage): Reply {
    const params = received.url.searchParams;
    const fields = fieldsOf(params, ['id', 'description', 'created_time']);
    const refused = unservedField(fields, ['id', 'title', 'description', 'created_time', 'permalink_url'], 'Video');
    if (refused) return refused;
    const since = timeParam(params, 'since') ?? -Infinity;
    if (Number.isNaN(since)) return invalidParameter('Param since must be a Unix timestamp or a date');
    const matching = server.videos.filter((video) => video.pageId === page.id && video.createdAt >= since).sort((a, b) => b.createdAt - a.createdAt);
    return listPage(received.url, matching, (video) =>
      pick(
        {
          id: video.id,
          title: video.title || undefined,
          description: video.description || undefined,
          created_time: graphTime(video.createdAt),
          permalink_url: `/${page.id}/videos/${video.id}/`,
        },
        fields,
      ),
    );
  }

  // A post (https://developers.facebook.com/docs/graph-api/reference/pagepost) or a photo
  // (https://developers.facebook.com/docs/graph-api/reference/photo: its caption is `name`).
  function readObject(received: Received, id: string, holder: MetaToken): Reply {
    const post = server.posts.find((candidate) => candidate.id === id || candidate.id === photos.get(id));
    if (!post) return noSuchObject(id);
    if (holder.pageId === undefined) return pageTokenRequired();
    if (holder.pageId !== post.pageId) return noSuchObject(id);
    if ((permissionsNeeded.object ?? []).some((permission) => !holder.scopes.has(permission))) return missingPermission();
    if (photos.has(id)) {
      const fields = fieldsOf(received.url.searchParams, ['id', 'created_time']);
      const refused = unservedField(fields, ['id', 'name', 'created_time'], 'Photo');
      return refused ?? { status: 200, body: pick({ id, name: post.message || undefined, created_time: graphTime(post.createdAt) }, fields) };
    }
    const fields = fieldsOf(received.url.searchParams, ['id', 'message', 'created_time']);
    return unservedField(fields, postFields, 'Post') ?? { status: 200, body: postJson(post, fields) };
  }

  type GraphHandler = (received: Received, holder: MetaToken, params: URLSearchParams, token: string) => Reply | Promise<Reply>;

  /** The Graph API proper: a valid token first (in the query, a form of any kind, or Bearer). */
  function withToken(endpoint: FacebookEndpoint, handle: GraphHandler): Route<FacebookEndpoint> {
    return {
      endpoint,
      handle: async (received) => {
        const params = await formParamsOf(received);
        if (!params) return invalidParameter('The multipart body does not parse');
        const holder = tokenHolder(tokens, params, received.request);
        if ('status' in holder) return holder;
        const bearer = /^Bearer (.+)$/.exec(received.request.headers.authorization ?? '')?.[1];
        return handle(received, holder, params, params.get('access_token') ?? bearer ?? '');
      },
    };
  }

  /** An endpoint of the user's: a user token, with the endpoint's permissions. */
  function forUser(endpoint: FacebookEndpoint, handle: GraphHandler): Route<FacebookEndpoint> {
    return withToken(endpoint, (received, holder, params, token) => {
      if (holder.pageId !== undefined) return invalidParameter(`(#100) Tried accessing nonexisting field (${endpoint}) on node type (Page)`);
      if ((permissionsNeeded[endpoint] ?? []).some((permission) => !holder.scopes.has(permission))) return missingPermission();
      return handle(received, holder, params, token);
    });
  }

  /**
   * An edge of a Page the user manages, with that Page's token and the endpoint's permissions; a write needs the
   * CREATE_CONTENT task too. A Page the user does not manage is no object the token can reach.
   */
  function onPage(
    endpoint: FacebookEndpoint,
    pageId: string,
    handle: (received: Received, page: FacebookPage, params: URLSearchParams) => Reply | Promise<Reply>,
  ) {
    const writes = postingEndpoints.has(endpoint);
    return withToken(endpoint, (received, holder, params) => {
      const page = pageOf(pageId);
      if (!page) return noSuchObject(pageId);
      if (holder.pageId !== page.id) return writes ? postingRefused() : holder.pageId === undefined ? pageTokenRequired() : missingPermission();
      if ((permissionsNeeded[endpoint] ?? []).some((permission) => !holder.scopes.has(permission))) return writes ? postingRefused() : missingPermission();
      if (writes && !page.tasks.includes('CREATE_CONTENT')) return postingRefused();
      return handle(received, page, params);
    });
  }

  function nodeRoute(id: string): Route<FacebookEndpoint> {
    if (id === server.user.id) return withToken('me', me);
    const page = pageOf(id);
    if (page) return forUserOrPage('page', page);
    const video = server.videos.find((candidate) => candidate.id === id);
    if (video) return onPage('video', video.pageId, (received) => readVideo(received, video));
    return withToken('object', (received, holder) => readObject(received, id, holder));
  }

  /** GET /{page-id}: with a user token (the documented way to a Page token) or the Page's own. */
  function forUserOrPage(endpoint: FacebookEndpoint, page: FacebookPage): Route<FacebookEndpoint> {
    return withToken(endpoint, (received, holder, _params, token) => {
      if ((permissionsNeeded[endpoint] ?? []).some((permission) => !holder.scopes.has(permission))) return missingPermission();
      return readPage(received, holder, page, token);
    });
  }

  function graphRoute(method: string, path: string): Route<FacebookEndpoint> | undefined {
    const open = (endpoint: FacebookEndpoint, handle: Route<FacebookEndpoint>['handle']) => ({ endpoint, handle });
    if (method === 'GET' && path === '/dialog/oauth') return open('authorize', authorize);
    if (method === 'GET' && path === '/oauth/access_token') return open('token', accessToken);
    if (method === 'GET' && path === '/me') return withToken('me', me);
    const uploadId = /^\/(upload:[^/]+)$/.exec(decoded(path))?.[1];
    if (uploadId && method === 'POST') return open('upload', (received) => upload(received, uploadId));
    if (uploadId && method === 'GET') return open('uploadStatus', (received) => uploadStatus(received, uploadId));
    const [, node, edge] = /^\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
    if (node && edge) {
      const id = decoded(node);
      if (method === 'GET' && edge === 'accounts' && (id === 'me' || id === server.user.id)) return forUser('accounts', accounts);
      if (method === 'POST' && edge === 'uploads') return withToken('uploadStart', (received, holder, params) => startUpload(received, holder, params, id));
      if (method === 'POST' && edge === 'photos') return onPage('photos', id, postPhoto);
      if (method === 'POST' && edge === 'feed') return onPage('feed', id, postToFeed);
      if (method === 'GET' && edge === 'feed') return onPage('feedList', id, listFeed);
      if (method === 'POST' && edge === 'videos') return onPage('videos', id, postVideo);
      if (method === 'GET' && edge === 'videos') return onPage('videoList', id, listVideos);
      return undefined;
    }
    const objectId = method === 'GET' ? /^\/([^/]+)$/.exec(path)?.[1] : undefined;
    return objectId ? nodeRoute(decoded(objectId)) : undefined;
  }

  function route(request: IncomingMessage, url: URL): Route<FacebookEndpoint> | Reply {
    // Any version, or none (Graph API serves an unversioned call at the oldest version the app may use).
    const path = /^(?:\/v\d+\.\d+)?(\/.*)$/.exec(url.pathname)?.[1] ?? url.pathname;
    return graphRoute(request.method ?? 'GET', path) ?? graphError(400, { code: 100, message: `Unknown path components: ${url.pathname}` });
  }

  return server;
}
