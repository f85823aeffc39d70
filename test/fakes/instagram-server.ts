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
  missingPermission,
  noSuchObject,
  oauthRefusal,
  paramsOf,
  paramsWithJsonOf,
  redirectWithCode,
  scriptedGraphError,
  timeParam,
  tokenHolder,
  unservedField,
  type GraphErrorOverrides,
  type MetaToken,
} from './meta-graph-fake.ts';
import { isMp4, videoFactsOf } from './mp4.ts';
import { startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for the Instagram API with Instagram Login, speaking the part our OAuth platform and connector
// use, each endpoint after its documentation page (linked at its handler). In production it is three hosts (the
// consent page on www.instagram.com, the code exchange on api.instagram.com, the rest on graph.instagram.com); the
// fake serves them all from `url`. Its errors are Graph API's (meta-graph-fake.ts), with the codes and subcodes of
// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes. Where the
// documentation is silent, the fake says so at the spot and does the least forgiving thing.

type InstagramEndpoint = 'authorize' | 'token' | 'exchange' | 'refresh' | 'me' | 'create' | 'container' | 'publish' | 'limit' | 'list' | 'media';

/** A scripted answer with a Graph error body: `code`, `subcode`, `message` override the status's usual ones. */
type InstagramScriptedResponse = ScriptedResponse & { code?: number; subcode?: number; message?: string };

type InstagramRequest = { method: string; path: string; query: URLSearchParams };

type InstagramContainer = {
  id: string;
  userId: string;
  mediaType: 'IMAGE' | 'REELS';
  caption: string;
  imageUrl: string | undefined;
  videoUrl: string | undefined;
  /** The image as the fake fetched it from `imageUrl`. */
  image?: { bytes: Buffer; contentType: string };
  /** The video as the fake fetched it from `videoUrl`. */
  video?: Buffer;
  altText: string | undefined;
  /** `share_to_feed` as sent (Reels only). */
  shareToFeed: boolean | undefined;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  /** The container's `status` text once it is in ERROR. */
  errorMessage: string | undefined;
  pollsLeft: number;
};

type InstagramMedia = {
  id: string;
  containerId: string;
  caption: string;
  mediaType: 'IMAGE' | 'VIDEO';
  mediaProductType: 'FEED' | 'REELS';
  /** When it was published, in ms. */
  publishedAt: number;
  permalink: string;
};

type Code = { redirectUri: string; expiresAt: number; used: boolean; scopes: string[] };

export type InstagramServer = ScriptedServer<InstagramEndpoint, InstagramScriptedResponse, InstagramRequest> & {
  /** `${url}/oauth/authorize`: the consent page (www.instagram.com/oauth/authorize in production). */
  authorizeUrl: string;
  /** `${url}/oauth/access_token`: the code exchange (api.instagram.com/oauth/access_token in production). */
  tokenUrl: string;
  /** The Instagram app: its id and secret are our client id and secret. */
  app: { clientId: string; clientSecret: string };
  /** `id`: the app-scoped id; `userId`: the Instagram professional account's id (the publishing endpoints' {ig-user-id}). */
  account: { id: string; userId: string; username: string; accountType: 'BUSINESS' | 'MEDIA_CREATOR' | 'PERSONAL' };
  /** How many status polls of a new container answer IN_PROGRESS before FINISHED. */
  processingPolls: number;
  /** Publishes the next `count` containers and answers only once the client has given up (as Threads' fake). */
  timeOutAfterPublishing: number;
  /** The rolling 24-hour content publishing limit: `total` (100 by default), and posts published in the last 24 h are counted from `media`. `usedBefore` adds posts made before the test (default 0). */
  publishingLimit: { total: number; usedBefore: number };
  containers: InstagramContainer[];
  media: InstagramMedia[];
  /** A token of the account as Instagram would have issued it `ageMs` ago (a long-lived one lasts 60 days, a short-lived one an hour), with every permission we ask for unless told which. */
  issueToken(kind: 'short' | 'long', ageMs?: number, scopes?: readonly string[]): string;
  /** Makes the token expired. */
  expire(token: string): void;
};

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;
const lifetimeMs = { short: hourMs, long: 60 * dayMs };
const codeLifetimeMs = hourMs;
const basic = 'instagram_business_basic';
const contentPublish = 'instagram_business_content_publish';
const allPermissions = [basic, contentPublish];
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login: the scope
// values; the old business_* ones stopped working on January 27, 2025, so they are refused as any unknown scope.
const knownScopes = new Set([
  basic,
  contentPublish,
  'instagram_business_manage_messages',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
]);
// The permissions each endpoint requires, from its page's Requirements: IG User
// (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user), publishing and
// its limit (https://developers.facebook.com/docs/instagram-platform/content-publishing), IG Container
// (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-container) and IG Media
// (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media).
const permissionsNeeded: Partial<Record<InstagramEndpoint, string[]>> = {
  me: [basic],
  create: [basic, contentPublish],
  container: [basic, contentPublish],
  publish: [basic, contentPublish],
  limit: [basic, contentPublish],
  list: [basic],
  media: [basic],
};

// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#creating: the
// caption's limits, alt text's, the image and Reel specifications.
const maxCaption = 2_200;
const maxHashtags = 30;
const maxMentions = 20;
const maxAltText = 1_000;
// The page says "8 MB maximum", the error's text "less than 8 MiB": the smaller of the two.
const maxImageBytes = 8_000_000;
const imageRatio = { min: 4 / 5, max: 1.91 };
const reelSpec = { minSeconds: 3, maxSeconds: 15 * 60, maxBytes: 300_000_000, minRatio: 0.01, maxRatio: 10, maxColumns: 1_920 };

// The errors of https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes the
// fake answers, with the user messages the page gives.
const errors = {
  downloadTooSlow: { code: -2, subcode: 2207003, message: 'It takes too long to download the media.' },
  expired: { code: -2, subcode: 2207020, message: 'The media you are trying to access has expired. Please try to upload again.' },
  limitReached: {
    code: 9,
    subcode: 2207042,
    message: 'The maximum number of posts that can be published by the Content Publishing API has been reached',
    userTitle: 'Max Posts Reached',
    userMessage: 'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
  },
  unknownMediaType: { code: 100, subcode: 2207023, message: 'The media type is unknown.' },
  videoFormat: { code: 352, subcode: 2207026, message: 'The video format is not supported. Please check spec for supported video format.' },
  notFetched: { code: 9004, subcode: 2207052, message: 'The media could not be fetched from this uri.' },
  notReady: {
    code: 9007,
    subcode: 2207027,
    message: 'Media ID is not available',
    userTitle: 'Cannot publish',
    userMessage: 'The media is not ready for publishing, please wait for a moment',
  },
  imageTooLarge: {
    code: 36000,
    subcode: 2207004,
    message: 'The image size is too large.',
    userTitle: 'Image size too large',
    userMessage: 'The image is too large to download. It should be less than 8 MiB.',
  },
  imageFormat: { code: 36001, subcode: 2207005, message: 'The image format is not supported.' },
  aspectRatio: { code: 36003, subcode: 2207009, message: 'The aspect ratio is not supported.' },
} satisfies Record<string, GraphErrorOverrides>;

/** The caption's error (code 36004, subcode 2207010: "Max 2,200 characters, 30 hashtags, and 20 @ tags"), saying which limit it broke. */
const captionRefused = (message: string) => graphError(400, { code: 36004, subcode: 2207010, message });

// The status texts of a container that is not in ERROR: the IG Container page defines `status` only for ERROR
// (its error subcode); these are the texts Instagram sends.
const statusTexts: Record<Exclude<InstagramContainer['status'], 'ERROR'>, string> = {
  IN_PROGRESS: 'In Progress: Media is still being processed.',
  FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
  PUBLISHED: 'Published: Media has been successfully published.',
  EXPIRED: 'Expired: Media was not published within 24 hours.',
};

// Hashtags and @mentions as Instagram links them. Every occurrence counts, a repeated one too (the page does not
// say; counting more is the least forgiving), and so does an e-mail address's "@host".
const hashtagCount = (caption: string) => (caption.match(/#[\p{L}\p{N}_]+/gu) ?? []).length;
const mentionCount = (caption: string) => (caption.match(/@[\p{L}\p{N}_.]+/gu) ?? []).length;

/** The caption's refusal, if it breaks a limit. "Characters" are not defined: UTF-16 units, the most an emoji can count. */
function captionError(caption: string): Reply | undefined {
  if (caption.length > maxCaption) return captionRefused(`The caption is longer than ${maxCaption} characters.`);
  if (hashtagCount(caption) > maxHashtags) return captionRefused(`The caption has more than ${maxHashtags} hashtags.`);
  if (mentionCount(caption) > maxMentions) return captionRefused(`The caption has more than ${maxMentions} @ tags.`);
  return undefined;
}

/**
 * JPEG by its bytes, and not an extended JPEG: "JPEG is the only image format supported. Extended JPEG formats such
 * as MPO and JPS are not supported" (https://developers.facebook.com/docs/instagram-platform/content-publishing#limitations).
 * MPO carries an APP2 "MPF" segment and JPS an APP3 "_JPSJPS_" one, both before the image data.
 */
function isPlainJpeg(bytes: Buffer): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return false;
  for (let at = 2; at + 4 <= bytes.length && bytes[at] === 0xff;) {
    const marker = bytes[at + 1];
    if (marker === 0xda || marker === 0xd9) break; // start of scan or end of image: no header segments follow
    const segment = bytes.subarray(at + 4, at + 2 + bytes.readUInt16BE(at + 2));
    if (marker === 0xe2 && segment.subarray(0, 4).toString('latin1') === 'MPF\0') return false;
    if (marker === 0xe3 && segment.subarray(0, 8).toString('latin1') === '_JPSJPS_') return false;
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return true;
}

/** The image's width and height as shown (EXIF orientations 5 to 8 turn it a quarter), or undefined if it does not decode. */
async function shownSizeOf(bytes: Buffer): Promise<{ width: number; height: number } | undefined> {
  try {
    const { width, height, orientation } = await sharp(bytes).metadata();
    if (!width || !height) return undefined;
    return (orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
  } catch {
    return undefined;
  }
}

/** Whether the MP4's `moov` box comes before its `mdat` ("moov atom at the front of the file", the Reel specifications). */
function moovFirst(bytes: Buffer): boolean {
  for (let at = 0; at + 8 <= bytes.length;) {
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    if (type === 'moov') return true;
    if (type === 'mdat') return false;
    const size = bytes.readUInt32BE(at);
    const boxSize = size === 1 && at + 16 <= bytes.length ? Number(bytes.readBigUInt64BE(at + 8)) : size;
    if (boxSize < 8) return false; // 0 runs to the end of the file: no moov after it
    at += boxSize;
  }
  return false;
}

/** Fetches media as Instagram does ("We cURL media used in publishing attempts"): the bytes, or the error subcode it failed with. */
async function fetchMedia(
  url: string,
  timeoutMs: number,
): Promise<{ bytes: Buffer; contentType: string } | { failed: typeof errors.notFetched | typeof errors.downloadTooSlow }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return { failed: errors.notFetched };
    return { bytes: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') ?? '' };
  } catch (error) {
    return { failed: error instanceof DOMException && error.name === 'TimeoutError' ? errors.downloadTooSlow : errors.notFetched };
  }
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startInstagramServer(): Promise<InstagramServer> {
  const tokens = new Map<string, MetaToken>();
  const codes = new Map<string, Code>();
  let lastId = 17_950_000_000_000_000n;
  const nextId = () => String((lastId += 1n));

  const scripted = await startScriptedServer<InstagramEndpoint, InstagramScriptedResponse, InstagramRequest>({
    name: 'instagram',
    // Instagram's rate-limit state travels in X-Business-Use-Case-Usage, a JSON whose estimated_time_to_regain_access
    // says when calls may resume (https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits):
    // a script's `rateLimitReset` is that header's JSON.
    rateLimitResetHeader: 'x-business-use-case-usage',
    record: (request, url) => ({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams }),
    route,
    failure: scriptedGraphError,
  });
  const server: InstagramServer = {
    ...scripted,
    authorizeUrl: `${scripted.url}/oauth/authorize`,
    tokenUrl: `${scripted.url}/oauth/access_token`,
    app: { clientId: '990602627938098', clientSecret: randomBytes(16).toString('hex') },
    account: { id: '8123456789012345', userId: '17841400000000001', username: 'alice', accountType: 'BUSINESS' },
    processingPolls: 0,
    timeOutAfterPublishing: 0,
    publishingLimit: { total: 100, usedBefore: 0 },
    containers: [],
    media: [],
    issueToken(kind, ageMs = 0, scopes = allPermissions) {
      const token = `IGAA${randomBytes(24).toString('base64url')}`;
      const issuedAt = Date.now() - ageMs;
      tokens.set(token, { kind, userId: server.account.userId, issuedAt, expiresAt: issuedAt + lifetimeMs[kind], scopes: new Set(scopes) });
      return token;
    },
    expire(token) {
      const found = tokens.get(token);
      if (found) found.expiresAt = Date.now() - 1;
    },
  };

  // https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login#step-1--get-authorization:
  // the person approves at once; the code (an hour, once) comes back on redirect_uri with the state, "#_" appended.
  // The page does not say how an unknown scope is refused, nor that instagram_business_basic is required; every
  // endpoint requires it, so a consent without it is refused here, as Threads' fake does with threads_basic.
  function authorize({ url }: Received): Reply {
    const params = url.searchParams;
    if (params.get('client_id') !== server.app.clientId) return invalidParameter('Invalid platform app');
    if (params.get('response_type') !== 'code') return invalidParameter('response_type must be code');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!URL.canParse(redirectUri)) return invalidParameter('redirect_uri is not a valid URL');
    const scopes = (params.get('scope') ?? '').split(/[ ,]/).filter(Boolean);
    const unknown = scopes.filter((scope) => !knownScopes.has(scope));
    if (unknown.length > 0) return invalidParameter(`Invalid Scopes: ${unknown.join(', ')}`);
    if (!scopes.includes(basic)) return invalidParameter(`The ${basic} permission is required`);
    const code = `AQ${randomBytes(24).toString('base64url')}`;
    codes.set(code, { redirectUri, expiresAt: Date.now() + codeLifetimeMs, used: false, scopes });
    return redirectWithCode(redirectUri, code, params.get('state'));
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login#step-2--exchange-the-code-for-a-token:
  // `{data: [{access_token, user_id, permissions}]}`; the redirect_uri must be the authorization's. `user_id` is, in
  // the page's words, the "Instagram App-scoped User ID": the app-scoped `id`, not the account's `user_id` that the
  // publishing endpoints take (GET /me gives that one).
  async function exchangeCode(received: Received): Promise<Reply> {
    const params = await formParamsOf(received);
    if (!params) return oauthRefusal('The form could not be read');
    if (params.get('client_id') !== server.app.clientId) return oauthRefusal('Invalid platform app');
    if (params.get('client_secret') !== server.app.clientSecret) return oauthRefusal('Error validating client secret.');
    if (params.get('grant_type') !== 'authorization_code') return oauthRefusal('Unsupported grant_type');
    const code = codes.get(params.get('code') ?? '');
    if (!code || code.used || code.expiresAt <= Date.now()) return oauthRefusal('Matching code was not found or was already used');
    if (params.get('redirect_uri') !== code.redirectUri)
      return oauthRefusal('Error validating verification code. Please make sure your redirect_uri is identical');
    code.used = true;
    const accessToken = server.issueToken('short', 0, code.scopes);
    return { status: 200, body: { data: [{ access_token: accessToken, user_id: server.account.id, permissions: code.scopes.join(',') }] } };
  }

  // A long-lived token keeps the permissions of the token it was made from.
  function longLivedAnswer(from: MetaToken): Reply {
    const token = server.issueToken('long', 0, [...from.scopes]);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: lifetimeMs.long / 1000 } };
  }

  // https://developers.facebook.com/docs/instagram-platform/reference/access_token: a valid short-lived token and the
  // app secret make a 60-day token.
  function exchangeToken(received: Received): Reply {
    const params = paramsOf(received);
    if (params.get('grant_type') !== 'ig_exchange_token') return invalidParameter('grant_type must be ig_exchange_token');
    if (params.get('client_secret') !== server.app.clientSecret) return invalidParameter('Error validating client secret.');
    const holder = tokenHolder(tokens, params, received.request, 'short');
    return 'status' in holder ? holder : longLivedAnswer(holder);
  }

  // https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token: an unexpired long-lived
  // token at least 24 hours old, with instagram_business_basic granted, gets 60 days again. The page says neither how
  // a younger token is refused (an invalid parameter here) nor whether the old token stops working (it keeps its
  // own expiry, as in Threads' fake).
  function refreshToken(received: Received): Reply {
    const params = paramsOf(received);
    if (params.get('grant_type') !== 'ig_refresh_token') return invalidParameter('grant_type must be ig_refresh_token');
    const holder = tokenHolder(tokens, params, received.request, 'long');
    if ('status' in holder) return holder;
    if (Date.now() - holder.issuedAt < dayMs) return invalidParameter('The access token must be at least 24 hours old to be refreshed');
    if (!holder.scopes.has(basic)) return missingPermission();
    return longLivedAnswer(holder);
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started#fields:
  // the fields asked, and `id`, which Graph API always adds to a node. The page's sample wraps the answer in `data`,
  // but /me "translates to GET /{user-id}" (https://developers.facebook.com/docs/instagram-platform/reference/me),
  // whose answer is the object itself.
  function me(received: Received): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id']);
    const all: Record<string, unknown> = {
      id: server.account.id,
      user_id: server.account.userId,
      username: server.account.username,
      account_type: server.account.accountType,
      media_count: server.media.filter((media) => ownerOf(media) === server.account.userId).length,
    };
    return unservedField(fields, Object.keys(all), 'User') ?? { status: 200, body: pick(all, fields) };
  }

  /** The fields asked for, and `id`. */
  function pick(all: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
    return Object.fromEntries(Object.entries(all).filter(([name, value]) => (name === 'id' || fields.includes(name)) && value !== undefined));
  }

  const containerOf = (id: string) => server.containers.find((container) => container.id === id);
  const ownerOf = (media: InstagramMedia) => containerOf(media.containerId)?.userId;

  /** Refuses what the account cannot do: the Instagram Platform serves professional accounts only (the pages do not say how it refuses a personal one). */
  function personalAccountRefusal(): Reply | undefined {
    if (server.account.accountType !== 'PERSONAL') return undefined;
    return graphError(403, { code: 10, message: '(#10) Content publishing is available to Instagram professional accounts (business and creator) only' });
  }

  /**
   * Takes the image: fetched while the POST waits, so what Instagram refuses in it is refused as the POST's answer
   * (the error codes page lists them as errors of the request), before any container exists.
   */
  async function takeImage(container: InstagramContainer): Promise<Reply | undefined> {
    const fetched = await fetchMedia(container.imageUrl ?? '', 10_000);
    if ('failed' in fetched) return graphError(400, fetched.failed);
    if (fetched.bytes.length > maxImageBytes) return graphError(400, errors.imageTooLarge);
    const size = isPlainJpeg(fetched.bytes) ? await shownSizeOf(fetched.bytes) : undefined;
    if (!size) return graphError(400, errors.imageFormat);
    // Width outside 320–1440 is scaled, not refused; only the ratio is.
    const ratio = size.width / size.height;
    if (ratio < imageRatio.min || ratio > imageRatio.max) return graphError(400, errors.aspectRatio);
    container.image = { bytes: fetched.bytes, contentType: fetched.contentType };
    return undefined;
  }

  /**
   * Takes the video: "Video uploads are asynchronous, so receiving a container ID does not guarantee that the upload
   * was successful" (the IG User Media page), so a video Instagram cannot take leaves the container in ERROR, its
   * `status` naming the error subcode as Instagram words it. The error codes page names one subcode for every
   * breach of the Reel specifications (2207026, the video format), so each breach gets it.
   */
  async function takeVideo(container: InstagramContainer): Promise<void> {
    const refuse = (subcode: number): void => {
      container.status = 'ERROR';
      container.errorMessage = `Error: Media upload has failed with error code ${subcode}`;
    };
    const fetched = await fetchMedia(container.videoUrl ?? '', 30_000);
    if ('failed' in fetched) return refuse(fetched.failed.subcode);
    const { bytes } = fetched;
    const facts = isMp4(bytes) && moovFirst(bytes) && bytes.length <= reelSpec.maxBytes ? videoFactsOf(bytes) : undefined;
    if (!facts) return refuse(errors.videoFormat.subcode);
    const ratio = facts.width / facts.height;
    if (facts.seconds < reelSpec.minSeconds || facts.seconds > reelSpec.maxSeconds) return refuse(errors.videoFormat.subcode);
    if (ratio < reelSpec.minRatio || ratio > reelSpec.maxRatio || facts.width > reelSpec.maxColumns) return refuse(errors.videoFormat.subcode);
    container.video = bytes;
  }

  /** The container's type from `media_type`, or the refusal: the fake takes a single image (no media_type) and a Reel. */
  function mediaTypeOf(params: URLSearchParams): InstagramContainer['mediaType'] | Reply {
    const mediaType = params.get('media_type');
    // An image container has no media_type: the page's values are CAROUSEL, REELS and STORIES (VIDEO is retired).
    if (mediaType === null) return 'IMAGE';
    if (mediaType === 'REELS') return 'REELS';
    if (mediaType === 'CAROUSEL' || mediaType === 'STORIES') return invalidParameter(`The Instagram fake does not take ${mediaType} containers`);
    return graphError(400, errors.unknownMediaType);
  }

  /** A parameter missing, or out of place for the container's type (each is "for images only" or "for Reels only" on the page). */
  function parameterError(params: URLSearchParams, mediaType: InstagramContainer['mediaType']): Reply | undefined {
    for (const name of ['upload_type', 'is_carousel_item', 'children']) {
      if (params.has(name)) return invalidParameter(`The Instagram fake does not model ${name}`);
    }
    if (mediaType === 'IMAGE') {
      if (!params.get('image_url')) return invalidParameter('Param image_url is required for images');
      for (const name of ['video_url', 'share_to_feed']) if (params.has(name)) return invalidParameter(`Param ${name} is for Reels only`);
      const altText = params.get('alt_text');
      if (altText !== null && Array.from(altText).length > maxAltText) return invalidParameter(`Param alt_text must be at most ${maxAltText} characters long`);
      return undefined;
    }
    if (!params.get('video_url')) return invalidParameter('Param video_url is required for Reels');
    // alt_text: "Reels and stories are not supported."
    for (const name of ['image_url', 'alt_text']) if (params.has(name)) return invalidParameter(`Param ${name} is not supported on Reels`);
    const shareToFeed = params.get('share_to_feed');
    if (shareToFeed !== null && shareToFeed !== 'true' && shareToFeed !== 'false') return invalidParameter('Param share_to_feed must be a boolean');
    return undefined;
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#creating and
  // https://developers.facebook.com/docs/instagram-platform/content-publishing#create-a-container.
  async function createContainer(received: Received, userId: string): Promise<Reply> {
    const params = paramsWithJsonOf(received);
    const personal = personalAccountRefusal();
    if (personal) return personal;
    const mediaType = mediaTypeOf(params);
    if (typeof mediaType !== 'string') return mediaType;
    const refused = parameterError(params, mediaType) ?? captionError(params.get('caption') ?? '');
    if (refused) return refused;
    const shareToFeed = params.get('share_to_feed');
    const container: InstagramContainer = {
      id: nextId(),
      userId,
      mediaType,
      caption: params.get('caption') ?? '',
      imageUrl: params.get('image_url') ?? undefined,
      videoUrl: params.get('video_url') ?? undefined,
      altText: params.get('alt_text') ?? undefined,
      shareToFeed: shareToFeed === null ? undefined : shareToFeed === 'true',
      status: 'IN_PROGRESS',
      errorMessage: undefined,
      // A Reel takes Instagram a while: at least one status check answers IN_PROGRESS.
      pollsLeft: mediaType === 'REELS' ? Math.max(1, server.processingPolls) : server.processingPolls,
    };
    if (mediaType === 'IMAGE') {
      const imageRefused = await takeImage(container);
      if (imageRefused) return imageRefused;
    } else {
      await takeVideo(container);
    }
    server.containers.push(container);
    return { status: 200, body: { id: container.id } };
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-container#reading: each
  // read of a container in progress is one poll of its processing.
  function readContainer(received: Received, container: InstagramContainer): Reply {
    const fields = fieldsOf(received.url.searchParams, ['id']);
    const refused = unservedField(fields, ['id', 'status', 'status_code', 'copyright_check_status'], 'IG Container');
    if (refused) return refused;
    if (container.status === 'IN_PROGRESS') {
      if (container.pollsLeft > 0) container.pollsLeft -= 1;
      else container.status = 'FINISHED';
    }
    const checked = container.status === 'IN_PROGRESS' ? 'in_progress' : 'completed';
    return {
      status: 200,
      body: pick(
        {
          id: container.id,
          status_code: container.status,
          status: container.status === 'ERROR' ? container.errorMessage : statusTexts[container.status],
          copyright_check_status: container.mediaType === 'REELS' ? { status: checked, matches_found: false } : { status: 'not_started', matches_found: false },
        },
        fields,
      ),
    };
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media#fields. The page
  // marks `caption` and `media_product_type` "Available for Instagram API with Facebook Login only", yet the Content
  // Publishing guide, written for both logins, tells apps to read media_product_type to know a Reel: the fake serves
  // both.
  function mediaJson(media: InstagramMedia, fields: readonly string[]): Record<string, unknown> {
    const container = containerOf(media.containerId);
    const all: Record<string, unknown> = {
      id: media.id,
      caption: media.caption,
      media_type: media.mediaType,
      media_product_type: media.mediaProductType,
      timestamp: graphTime(media.publishedAt),
      permalink: media.permalink,
      shortcode: media.permalink.split('/').filter(Boolean).at(-1),
      username: server.account.username,
      owner: { id: container?.userId },
      // The pages give share_to_feed no default: a Reel sent without it is reported as not shared, the least forgiving.
      is_shared_to_feed: media.mediaType === 'VIDEO' ? (container?.shareToFeed ?? false) : undefined,
      alt_text: media.mediaType === 'IMAGE' ? container?.altText : undefined,
    };
    return pick(all, fields);
  }

  const mediaFields = [
    'id',
    'caption',
    'media_type',
    'media_product_type',
    'timestamp',
    'permalink',
    'shortcode',
    'username',
    'owner',
    'is_shared_to_feed',
    'alt_text',
  ];

  function readMedia(received: Received, id: string, holder: MetaToken): Reply {
    const media = server.media.find((candidate) => candidate.id === id && ownerOf(candidate) === holder.userId);
    if (!media) return noSuchObject(id);
    const fields = fieldsOf(received.url.searchParams, ['id']);
    return unservedField(fields, mediaFields, 'IG Media') ?? { status: 200, body: mediaJson(media, fields) };
  }

  /** The account's posts published in the 24 hours before now (or since `since`), and those made before the test. */
  function quotaUsage(userId: string, since = Date.now() - dayMs): number {
    return server.media.filter((media) => ownerOf(media) === userId && media.publishedAt >= since).length + server.publishingLimit.usedBefore;
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media_publish and
  // the limit of https://developers.facebook.com/docs/instagram-platform/content-publishing#rate-limit, "enforced on
  // the POST /<IG_ID>/media_publish endpoint". The pages do not say what publishing a container twice does: the fake
  // refuses it. A container in ERROR is refused as one not ready (not documented either).
  async function publish(received: Received, userId: string): Promise<Reply> {
    const personal = personalAccountRefusal();
    if (personal) return personal;
    const id = paramsWithJsonOf(received).get('creation_id') ?? '';
    const container = containerOf(id);
    if (!container || container.userId !== userId) return graphError(400, { code: 24, subcode: 2207006, message: `The media with id ${id} cannot be found` });
    if (container.status === 'IN_PROGRESS' || container.status === 'ERROR') return graphError(400, errors.notReady);
    if (container.status === 'EXPIRED') return graphError(400, errors.expired);
    if (container.status === 'PUBLISHED') return invalidParameter(`The media container ${id} has already been published`);
    if (quotaUsage(userId) >= server.publishingLimit.total) return graphError(400, errors.limitReached);
    const reel = container.mediaType === 'REELS';
    const media: InstagramMedia = {
      id: nextId(),
      containerId: container.id,
      caption: container.caption,
      mediaType: reel ? 'VIDEO' : 'IMAGE',
      mediaProductType: reel ? 'REELS' : 'FEED',
      publishedAt: Date.now(),
      permalink: `${server.url}/${reel ? 'reel' : 'p'}/${randomBytes(8).toString('base64url')}/`,
    };
    server.media.push(media);
    container.status = 'PUBLISHED';
    if (server.timeOutAfterPublishing > 0) {
      server.timeOutAfterPublishing -= 1;
      await afterClientGivesUp(received.request);
    }
    return { status: 200, body: { id: media.id } };
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/content_publishing_limit:
  // quota_usage by default; `since` no older than 24 hours (how an older one is refused is not said). The page's
  // sample asks for rate_limit_settings and gets `config`: the fake answers it so.
  function publishingLimit(received: Received, userId: string): Reply {
    const personal = personalAccountRefusal();
    if (personal) return personal;
    const params = received.url.searchParams;
    const fields = fieldsOf(params, ['quota_usage']);
    const refused = unservedField(fields, ['quota_usage', 'config', 'rate_limit_settings'], 'IG User Content Publishing Limit');
    if (refused) return refused;
    const since = timeParam(params, 'since');
    if (since !== null && !(since >= Date.now() - dayMs && since <= Date.now()))
      return invalidParameter('Param since must be a Unix timestamp no older than 24 hours');
    const entry: Record<string, unknown> = {};
    if (fields.includes('quota_usage')) entry.quota_usage = quotaUsage(userId, since ?? undefined);
    if (fields.includes('config') || fields.includes('rate_limit_settings')) {
      entry.config = { quota_total: server.publishingLimit.total, quota_duration: dayMs / 1000 };
    }
    return { status: 200, body: { data: [entry] } };
  }

  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#reading:
  // newest first, time-based pagination with `since` and `until`, and cursors; 25 a page unless `limit` says (the
  // page gives no default: Graph API's usual one).
  function list(received: Received, userId: string): Reply {
    const params = received.url.searchParams;
    const fields = fieldsOf(params, ['id']);
    const refused = unservedField(fields, mediaFields, 'IG Media');
    if (refused) return refused;
    const since = timeParam(params, 'since') ?? -Infinity;
    const until = timeParam(params, 'until') ?? Infinity;
    const limit = Number(params.get('limit') ?? 25);
    const offset = params.has('after') ? Number(Buffer.from(params.get('after') ?? '', 'base64url').toString('utf8')) : 0;
    if ([since, until].some(Number.isNaN)) return invalidParameter('Params since and until must be Unix timestamps or dates');
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) return invalidParameter('Invalid limit or cursor');
    const matching = server.media
      .filter((media) => ownerOf(media) === userId && media.publishedAt >= since && media.publishedAt <= until)
      .sort((a, b) => b.publishedAt - a.publishedAt);
    const page = matching.slice(offset, offset + limit);
    const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
    const paging: Record<string, unknown> = { cursors: { before: cursor(offset), after: cursor(offset + page.length) } };
    if (offset + page.length < matching.length) {
      const next = new URL(received.url);
      next.searchParams.set('after', cursor(offset + page.length));
      paging.next = next.toString();
    }
    return { status: 200, body: { data: page.map((media) => mediaJson(media, fields)), paging } };
  }

  type GraphHandler = (received: Received, holder: MetaToken) => Reply | Promise<Reply>;

  /** The Graph API proper: a valid token first, with the permissions the endpoint requires. */
  function withToken(endpoint: InstagramEndpoint, handle: GraphHandler): Route<InstagramEndpoint> {
    return {
      endpoint,
      handle: (received) => {
        const holder = tokenHolder(tokens, paramsWithJsonOf(received), received.request);
        if ('status' in holder) return holder;
        if ((permissionsNeeded[endpoint] ?? []).some((permission) => !holder.scopes.has(permission))) return missingPermission();
        return handle(received, holder);
      },
    };
  }

  /** An edge of the token's own account, named by its `user_id` (or `me`); another id is no object the token can reach. */
  function forUser(pathUser: string, handle: (received: Received, userId: string) => Reply | Promise<Reply>): GraphHandler {
    return (received, holder) => (pathUser === holder.userId || pathUser === 'me' ? handle(received, holder.userId) : noSuchObject(pathUser));
  }

  function graphRoute(method: string, path: string): Route<InstagramEndpoint> | undefined {
    if (method === 'GET' && path === '/me') return withToken('me', me);
    const [, user, edge] = /^\/([^/]+)\/(media|media_publish|content_publishing_limit)$/.exec(path) ?? [];
    if (user && edge) {
      const pathUser = decodeURIComponent(user);
      if (method === 'POST' && edge === 'media') return withToken('create', forUser(pathUser, createContainer));
      if (method === 'GET' && edge === 'media') return withToken('list', forUser(pathUser, list));
      if (method === 'POST' && edge === 'media_publish') return withToken('publish', forUser(pathUser, publish));
      if (method === 'GET' && edge === 'content_publishing_limit') return withToken('limit', forUser(pathUser, publishingLimit));
    }
    const objectId = method === 'GET' ? /^\/([^/]+)$/.exec(path)?.[1] : undefined;
    if (!objectId) return undefined;
    const id = decodeURIComponent(objectId);
    const container = containerOf(id);
    if (container) {
      return withToken('container', (received, holder) => (container.userId === holder.userId ? readContainer(received, container) : noSuchObject(id)));
    }
    return withToken('media', (received, holder) => readMedia(received, id, holder));
  }

  function endpointOf(method: string, path: string): Route<InstagramEndpoint> | undefined {
    const open = (endpoint: InstagramEndpoint, handle: Route<InstagramEndpoint>['handle']) => ({ endpoint, handle });
    if (method === 'GET' && path === '/oauth/authorize') return open('authorize', authorize);
    if (method === 'POST' && path === '/oauth/access_token') return open('token', exchangeCode);
    if (method === 'GET' && path === '/access_token') return open('exchange', exchangeToken);
    if (method === 'GET' && path === '/refresh_access_token') return open('refresh', refreshToken);
    // Graph paths take any version, or none (the pages' samples have both).
    const graphPath = /^(?:\/v\d+\.\d+)?(\/.*)$/.exec(path)?.[1];
    return graphPath === undefined ? undefined : graphRoute(method, graphPath);
  }

  function route(request: IncomingMessage, url: URL): Route<InstagramEndpoint> | Reply {
    return endpointOf(request.method ?? 'GET', url.pathname) ?? graphError(400, { code: 100, message: `Unknown path components: ${url.pathname}` });
  }

  return server;
}
