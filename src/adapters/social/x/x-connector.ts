import { callSessionStore } from '../call-session-store.ts';
import { mediaLedger } from '../media-ledger.ts';
import { createPlatformHttp, type Answer, type PlatformHttpOptions } from '../platform-http.ts';
import { imageDimensions } from '../image-dimensions.ts';
import { shortenText } from '../shorten-text.ts';
import {
  notSent,
  SocialRejectedError,
  type NotSent,
  type PublishedSocialPost,
  type SessionStore,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostPreview,
  type ThreadReply,
  type XCredentials,
} from '../social-connector.ts';
import { xAccountOf, xDataOf, xFailureOf } from './x-answers.ts';
import type { XEndpoints } from './x-oauth-platform.ts';
import { uploadedXVideo } from './x-video-upload.ts';
import { weightedLength, xMaxWeightedLength } from '../weighted-text.ts';
import { platformNames } from '../social-platforms.ts';

// X's API v2 with a user's OAuth 2 access token: the image through the v2 media upload
// (https://docs.x.com/x-api/media/upload-media: one request, the bytes in base64, `media_category: tweet_image`, and no
// `media_type`, which X's API description no longer allows there: X reads the type from the bytes),
// its description through https://docs.x.com/x-api/media/create-media-metadata, then the post
// (https://docs.x.com/x-api/posts/create-post), a part of a thread with `reply.in_reply_to_tweet_id` naming the part
// before it; a video in parts, waiting out X's processing between attempts (x-video-upload.ts). One attempt per
// call, as Temporal's retry policy owns retrying.
//
// X takes no idempotency key. What stands in for one: before the post is sent, its text and the time are written in
// the connection's session under the attempt's idempotency key (a small ledger, a day long), so `findPublished` can
// look the post up among the account's recent posts (https://docs.x.com/x-api/users/get-posts) by its text; and X
// itself refuses a second post with the same text as a recent one ("duplicate content"), which `publish` answers
// with the post it finds. Neither is a guarantee: a post edited or deleted meanwhile, or the same text posted by the
// person in the same minutes, is not told apart.

export type XConnectorOptions = PlatformHttpOptions & XEndpoints;

type Image = NonNullable<SocialPost['image']>;
export type XConnector = SocialConnector & {
  /** The post an earlier attempt with this key created, found among the account's recent posts; null when none is. */
  findPublished(credentials: SocialCredentials, idempotencyKey: string, sessions?: SessionStore): Promise<PublishedSocialPost | null | NotSent>;
};

const maxImageBytes = 5 * 1024 * 1024;
const maxAltChars = 1_000;
// How long a ledger entry is kept: longer than any publication's retries (about half an hour).
const ledgerKeepMs = 24 * 60 * 60 * 1000;
// Posts looked at when looking one up: X's most per page, and more than one account posts in the window.
const lookupPageSize = 100;
// X's clock and ours: a post is looked for from a minute before the attempt.
const clockSlackMs = 60_000;
// X's words when it refuses a post with the same text as a recent one.
const duplicateContent = /duplicate content/i;

type Ledger = Record<string, { text: string; at: number }>;

function accountOf(credentials: SocialCredentials): XCredentials {
  if (credentials.platform !== 'x') throw new SocialRejectedError(`the X connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

function sessionOf(stored: string | undefined): Record<string, unknown> {
  if (!stored) return {};
  try {
    const parsed: unknown = JSON.parse(stored);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function ledgerOf(stored: string | undefined): Ledger {
  return (sessionOf(stored).sent as Ledger | undefined) ?? {};
}

/** A post's text as X gives it back: entities unescaped, t.co links expanded, the media link left out. */
function textOfTweet(tweet: Record<string, unknown>): string {
  let text = typeof tweet.text === 'string' ? tweet.text : '';
  const urls = (tweet.entities as { urls?: Array<{ url?: unknown; expanded_url?: unknown; media_key?: unknown }> } | undefined)?.urls ?? [];
  for (const url of urls) {
    if (typeof url.url !== 'string') continue;
    text = text.replace(url.url, url.media_key ? '' : typeof url.expanded_url === 'string' ? url.expanded_url : url.url);
  }
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').trim();
}

async function imageDetails(image: Image): Promise<SocialPostPreview['image']> {
  return { type: image.contentType, bytes: image.bytes.length, ...(await imageDimensions(image.bytes, platformNames.x)) };
}

/** The connector for X. */
export function createXConnector(options: XConnectorOptions): XConnector {
  const http = createPlatformHttp(platformNames.x, options);
  const api = (path: string) => new URL(path, options.apiUrl);
  const headersOf = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

  async function uploadImage(token: string, image: Image): Promise<string> {
    const upload = await http.request({
      method: 'POST',
      url: api('/2/media/upload'),
      headers: headersOf(token),
      json: { media: image.bytes.toString('base64'), media_category: 'tweet_image' },
    });
    if (upload.status !== 200 && upload.status !== 201) throw xFailureOf(upload, 'the image', [token]);
    const mediaId = http.textField({ ...upload, body: xDataOf(upload, 'the image') }, 'id', 'the image');
    if (image.alt) {
      const metadata = await http.request({
        method: 'POST',
        url: api('/2/media/metadata'),
        headers: headersOf(token),
        json: { id: mediaId, metadata: { alt_text: { text: shortenText(image.alt, { codePoints: maxAltChars }) } } },
      });
      if (metadata.status !== 200 && metadata.status !== 201) throw xFailureOf(metadata, 'the image description', [token]);
    }
    return mediaId;
  }

  /** The account's post with this text since `since` (epoch ms), if X lists one. */
  async function lookUp(account: XCredentials, text: string, since: number): Promise<PublishedSocialPost | null> {
    const url = api(`/2/users/${encodeURIComponent(account.userId)}/tweets`);
    url.search = new URLSearchParams({
      max_results: String(lookupPageSize),
      start_time: new Date(since - clockSlackMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      'tweet.fields': 'created_at,entities',
      // Replies stay in: a thread's later parts are replies to the account's own posts.
      exclude: 'retweets',
    }).toString();
    const answer = await http.request({ method: 'GET', url, headers: headersOf(account.accessToken) });
    if (answer.status !== 200) throw xFailureOf(answer, 'the lookup of recent posts', [account.accessToken]);
    const tweets = Array.isArray(answer.body.data) ? (answer.body.data as Array<Record<string, unknown>>) : [];
    const found = tweets.find((tweet) => textOfTweet(tweet) === text.trim() && typeof tweet.id === 'string');
    return found ? publishedOf(found.id as string) : null;
  }

  function publishedOf(id: string): PublishedSocialPost {
    return { externalPostId: id, url: `https://x.com/i/web/status/${encodeURIComponent(id)}` };
  }

  async function remember(sessions: SessionStore, idempotencyKey: string, text: string): Promise<void> {
    await sessions.renew((stored) => {
      const now = Date.now();
      const ledger = ledgerOf(stored);
      const kept = Object.entries(ledger).filter(([, entry]) => now - entry.at < ledgerKeepMs);
      // An entry of an earlier attempt stays: the post may be from then.
      const earlier = ledger[idempotencyKey];
      // The session's other fields (the media ledger's) stay as they are.
      return Promise.resolve(JSON.stringify({ ...sessionOf(stored), sent: Object.fromEntries([...kept, [idempotencyKey, earlier ?? { text, at: now }]]) }));
    });
  }

  async function createPost(account: XCredentials, text: string, mediaIds: string[], replyTo: ThreadReply | undefined): Promise<Answer> {
    return http.request({
      method: 'POST',
      url: api('/2/tweets'),
      headers: headersOf(account.accessToken),
      json: {
        text,
        ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
        // A part of a thread answers the part before it; X links the conversation to the first by itself.
        ...(replyTo ? { reply: { in_reply_to_tweet_id: replyTo.parent.externalPostId } } : {}),
      },
      // Makes the post: sent and unanswered, its outcome is unknown, and the next attempt looks for it first.
      creates: true,
    });
  }

  return {
    platform: 'x',
    declaration: {
      platform: 'x',
      auth: 'oauth2',
      text: { max: xMaxWeightedLength, unit: 'weighted' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxImageBytes, maxCount: 4, altText: true },
      // https://docs.x.com/x-api/media/quickstart/best-practices: up to 512 MB, 0.5 to 140 seconds, 1:3 to 3:1.
      video: { types: ['video/mp4'], maxBytes: 512 * 1024 * 1024, minDurationMs: 500, maxDurationMs: 140_000, aspectRatio: { min: 1 / 3, max: 3 } },
      threads: true,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how: "X takes no idempotency key: before a retry the account's recent posts are searched for one with the same text, and X refuses a second post with the text of a recent one. A post edited or deleted meanwhile is not found.",
      },
    },

    async verify(credentials) {
      // Wrong credentials reject like every other failure, rather than throw before a promise exists.
      const { accessToken } = accountOf(credentials);
      return await xAccountOf(http, options.apiUrl, accessToken);
    },

    async preview(post) {
      const text = shortenText(post.text, { weighted: xMaxWeightedLength });
      return { text, count: weightedLength(text), image: post.image ? await imageDetails(post.image) : null };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = accountOf(credentials);
      const text = shortenText(post.text, { weighted: xMaxWeightedLength });
      const ledger = mediaLedger(sessions);
      const upload = { http, apiUrl: options.apiUrl, token: account.accessToken, ledger, idempotencyKey: post.idempotencyKey };
      const mediaIds = post.video ? [await uploadedXVideo(upload, post.video)] : post.image ? [await uploadImage(account.accessToken, post.image)] : [];
      await remember(sessions, post.idempotencyKey, text);
      const startedAt = Date.now();
      const answer = await createPost(account, text, mediaIds, post.replyTo);
      if (answer.status === 201 || answer.status === 200) {
        const published = publishedOf(http.textField({ ...answer, body: xDataOf(answer, 'the post') }, 'id', 'the post'));
        if (post.video) await ledger.forgetAfterPost(post.idempotencyKey);
        return published;
      }
      const failure = xFailureOf(answer, 'the post', [account.accessToken]);
      // The same text as a recent post: most likely ours, from an attempt whose answer was lost.
      if (answer.status === 403 && failure instanceof SocialRejectedError && duplicateContent.test(failure.reason)) {
        const found = await lookUp(account, text, startedAt - ledgerKeepMs);
        if (found) return found;
      }
      throw failure;
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      const account = accountOf(credentials);
      // No ledger to say what was sent: nothing can be found.
      if (!sessions) return null;
      const entry = ledgerOf(await sessions.read())[idempotencyKey];
      // Nothing was about to be sent under this key: the attempt stopped before the post (an upload, say).
      if (!entry) return notSent;
      return lookUp(account, entry.text, entry.at);
    },
  };
}
