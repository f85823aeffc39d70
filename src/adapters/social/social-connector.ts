import type { Readable } from 'node:stream';
import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../net/remote-errors.ts';
import { failureTypes, type FailureType } from '../temporal/failure-types.ts';
import type { PlatformDeclaration } from './platform-declaration.ts';

// Publishing to a customer's social account. One connector per platform, speaking the platform's real API; the
// publish activity picks one by platform and never knows the difference.

import type { SocialPlatform } from './social-platforms.ts';

export { socialPlatforms, type SocialPlatform } from './social-platforms.ts';

export type MastodonCredentials = { platform: 'mastodon'; instanceUrl: string; accessToken: string };
export type BlueskyCredentials = { platform: 'bluesky'; serviceUrl: string; handle: string; appPassword: string };

/**
 * The tokens of a connection made through OAuth 2, as its keep-alive workflow keeps them (sealed like any
 * credentials): `expiresAt` is when the access token expires (ISO); `refreshToken` is absent where the platform
 * issues none.
 */
export type OAuthTokenFields = {
  accessToken: string;
  refreshToken?: string | undefined;
  expiresAt: string;
  refreshTokenExpiresAt?: string | undefined;
  /** `authors`: granted to the platform's app for authors (OAuthSetup.authorsApp), which alone may refresh them. */
  app?: 'authors' | undefined;
};
/** X: `userId` is the account's id, whose recent posts a retry looks in (see x-connector.ts). */
export type XCredentials = OAuthTokenFields & { platform: 'x'; userId: string };
/** LinkedIn: the tokens and who posts (see linkedin-author.ts). */
export type LinkedInCredentials = OAuthTokenFields & {
  platform: 'linkedin';
  /** Who the posts are by: the member (`urn:li:person:…`) or an organisation they administer (`urn:li:organization:…`). */
  author: string;
};
/** Threads: `userId` is the account's id, whose threads the posts are made under; Threads issues no refresh token. */
export type ThreadsCredentials = OAuthTokenFields & { platform: 'threads'; userId: string };
/**
 * Pinterest: the tokens (the refresh token rotates) and the board the Pins go to, which the person chooses after
 * connecting (kept on the connection, outside these sealed fields, and added when they are opened: fresh-credentials.ts).
 */
export type PinterestCredentials = OAuthTokenFields & { platform: 'pinterest'; destination?: string | undefined };
/**
 * How a connection's posts are published, where its platform takes the setting (its declaration's `settings`): who
 * may see them (YouTube's privacy status) and whether they are made for kids (YouTube's COPPA declaration). Kept on the
 * connection outside its sealed credentials and added when they are opened, as a destination is.
 */
export type ConnectionSettings = { visibility?: 'public' | 'unlisted' | 'private' | undefined; madeForKids?: boolean | undefined };
/** YouTube: the Google tokens (the refresh token does not rotate), the channel the videos are uploaded to, and its settings. */
export type YouTubeCredentials = OAuthTokenFields & { platform: 'youtube'; channelId: string; settings?: ConnectionSettings | undefined };
/** Instagram: the long-lived token (which refreshes itself) and the professional account's id, the posts' `{ig-user-id}`. */
export type InstagramCredentials = OAuthTokenFields & { platform: 'instagram'; userId: string };
/**
 * TikTok: the tokens (the refresh token may rotate), the account's open_id, and the privacy level the videos are
 * posted with, which the person chooses after connecting (kept on the connection like Pinterest's board).
 */
export type TikTokCredentials = OAuthTokenFields & { platform: 'tiktok'; openId: string; destination?: string | undefined };
/**
 * Facebook: the person's long-lived user token and id, and the Page the posts go to, chosen after connecting (kept on
 * the connection and added when the credentials are opened, as Pinterest's board); the Page's own token is derived
 * from the person's and held in the connection's session (facebook-page-token.ts).
 */
export type FacebookCredentials = OAuthTokenFields & { platform: 'facebook'; userId: string; destination?: string | undefined };
export type OAuthCredentials =
  | XCredentials
  | LinkedInCredentials
  | ThreadsCredentials
  | PinterestCredentials
  | YouTubeCredentials
  | InstagramCredentials
  | TikTokCredentials
  | FacebookCredentials;
/** Nostr: the secret key that signs the notes (64 hex digits) and the relays (wss:// URLs) they are sent to. */
export type NostrCredentials = { platform: 'nostr'; secretKey: string; relays: string[] };
/** Telegram: the bot's token (from @BotFather) and the chat it posts to: a numeric id or a public `@channelname`. */
export type TelegramCredentials = { platform: 'telegram'; botToken: string; chatId: string };
/** Discord: the channel's webhook URL, which holds the webhook's token. */
export type DiscordCredentials = { platform: 'discord'; webhookUrl: string };
/** Slack: a bot token (`xoxb-…`) of the customer's Slack app, and the channel it posts in (an id such as `C0123ABCD`). */
export type SlackCredentials = { platform: 'slack'; botToken: string; channelId: string };
export type SocialCredentials =
  MastodonCredentials | BlueskyCredentials | OAuthCredentials | NostrCredentials | TelegramCredentials | DiscordCredentials | SlackCredentials;

/** Who the credentials belong to, as the platform says (checked when a connection is created). */
export type VerifiedAccount = {
  /** e.g. `@alice@mastodon.social`, `alice.bsky.social`. */
  accountName: string;
  /** The platform's stable id of the account (Mastodon account id, Bluesky DID). */
  accountId: string;
  /** The session the check opened, for the connection's SessionStore (Bluesky); none when the platform has none. */
  session?: string | undefined;
  /** The server the connection is shown to talk to, where the credentials name none (Telegram, Discord: the API's base URL; Slack: the workspace's address). */
  serverUrl?: string | undefined;
};

/**
 * Where a connector keeps a connection's session with its platform (Bluesky's tokens), so that publishing reuses it
 * instead of logging in every time. The session is the connector's own text (JSON); the store only keeps it.
 */
export type SessionStore = {
  /** Names the connection: renewals of one key within a process are one renewal. */
  readonly key: string;
  /** The stored session, if any. */
  read(): Promise<string | undefined>;
  /**
   * Runs `renewal` while no other process runs one for this connection, with the session stored at that moment
   * (another process may just have renewed it), and stores what it returns.
   */
  renew(renewal: (stored: string | undefined) => Promise<string>): Promise<string>;
};

export type SocialPost = {
  /** The post text; connectors shorten it to the platform's limit. */
  text: string;
  /** The text's language (BCP 47, e.g. `es`) when known: Bluesky's `langs`, which its feeds filter by. */
  language?: string | undefined;
  image?: { bytes: Buffer; contentType: 'image/png' | 'image/jpeg'; alt: string } | undefined;
  /**
   * A URL anyone on the internet can GET `image` at, exactly as given, for platforms that take no upload, which call
   * it only when they post an image: a signed, expiring one for Threads, which fetches it while posting; the image's
   * lasting link for Nostr, whose note keeps it (its platform module's `imageLink`).
   */
  imageUrl?: (() => Promise<string>) | undefined;
  /**
   * Stores `bytes`, the image as the connector made it for a platform that fetches it (Instagram's JPEG), where the
   * platform can fetch it, and answers a signed link to it; the copy leaves storage after a day. Given with `imageUrl`.
   */
  copyLink?: ((bytes: Buffer, contentType: 'image/jpeg') => Promise<string>) | undefined;
  /** The post's video, sent instead of its image (never both): only to a platform whose declaration has `video`. */
  video?: SocialVideo | undefined;
  /**
   * The same for every attempt of one publication, so a retried attempt never creates a second post: Mastodon's
   * `Idempotency-Key`, Bluesky's record key.
   */
  idempotencyKey: string;
  /** Called every few seconds while the connector waits (media processing), so the activity can heartbeat. */
  onProgress?: () => void;
  /**
   * When the post is dated, the same for every attempt of one publication: Nostr's `created_at`, which is part of
   * the event's id, so a retried attempt sends the same event. Absent (some tests): now.
   */
  datedAt?: Date | undefined;
  /** For a part of a thread after the first: the posts it replies to (only on a platform whose declaration has `threads`). */
  replyTo?: ThreadReply | undefined;
  /**
   * Counts `units` of the platform's daily quota (its declaration's `quota`) as spent, right before the connector makes
   * the call that costs them (YouTube: opening an upload session), so the count every replica reads stays ahead of the
   * platform's own. Given on a platform with a quota; absent (some tests): nothing is counted.
   */
  spendQuota?: ((units: number) => Promise<void>) | undefined;
};

/** One server's answer, where a post goes to several at once (Nostr relays, NIP-20 `OK`), in the order they were asked. */
export type ServerAnswer = { server: string; accepted: boolean; message: string };

export type PublishedSocialPost = {
  externalPostId: string;
  url?: string | undefined;
  /** What else a reply to this post must name, in the connector's own words (Bluesky: the record's CID). */
  replyRef?: string | undefined;
  /** Each server's answer where the post went to several (Nostr). */
  answers?: ServerAnswer[] | undefined;
  /**
   * Who can see the post, in a sentence for the attempt's history, where that is not everyone (YouTube's private
   * lock on an unaudited app, TikTok's `SELF_ONLY`): the post exists, and a customer who cannot find it learns why.
   */
  visibility?: string | undefined;
};

/** The posts of a thread a later part replies to: the thread's first post and the one just before the part. */
export type ThreadReply = { root: PublishedSocialPost; parent: PublishedSocialPost };

/** What a preview is given: the text and image (or video) a publish would be given. */
export type SocialPostDraft = {
  text: string;
  image?: { bytes: Buffer; contentType: 'image/png' | 'image/jpeg'; alt: string } | undefined;
  video?: OutgoingVideo | undefined;
};

/** A video as it is sent: the stored file, as it is (never re-encoded). */
export type OutgoingVideo = { type: 'video/mp4'; bytes: number; durationMs: number; width: number; height: number };

/**
 * A post's video as a connector gets it: its facts, `open` for its bytes (a new stream each call, read from storage
 * as the request sends them, so a video is never held whole in memory), and `url` for a platform that fetches it or
 * whose post keeps a link (as `imageUrl`), called only by those.
 */
export type SocialVideo = OutgoingVideo & { alt: string; open: () => Readable; url: () => Promise<string> };

/** An image as the connector would send it. */
export type OutgoingImage = { type: string; bytes: number; width: number; height: number };

/**
 * What a publish would send: the text after shortening, its count in the declaration's unit, and the image after any
 * conversion or resize (null without one).
 */
export type SocialPostPreview = { text: string; count: number; image: OutgoingImage | null };

export type SocialConnector = {
  readonly platform: SocialPlatform;
  /** What the platform takes (text, images, threads), for the catalogue and the checks before publishing. */
  readonly declaration: PlatformDeclaration;
  verify(credentials: SocialCredentials): Promise<VerifiedAccount>;
  /**
   * What `publish` would send for this post, worked out the same way and without asking the platform (for the dry run
   * of a publication). An image that could never be sent (still over the limit after what the connector does) is
   * described as it would be sent: the caller compares it with the declaration.
   */
  preview(post: SocialPostDraft): Promise<SocialPostPreview>;
  /** `sessions` is the connection's: without one (a platform without sessions, some tests) a session lasts one call. */
  publish(credentials: SocialCredentials, post: SocialPost, sessions?: SessionStore): Promise<PublishedSocialPost>;
  /**
   * The post an earlier attempt with this idempotency key created, looked up on the platform (by a marker the
   * connector put in the post, or the platform's own idempotency), or null when there is none. Called before a
   * retry that follows an attempt whose outcome is unknown (SocialOutcomeUnknownError). A connector without it
   * relies on its declaration: `retriesNeverDuplicate.guaranteed` says whether sending again is safe. `notSent`
   * where the connector knows no post was sent under the key (it notes each post before sending it, and found no
   * note: the attempt stopped before, during an upload say), so sending it is safe whatever the declaration says.
   */
  findPublished?(credentials: SocialCredentials, idempotencyKey: string, sessions?: SessionStore): Promise<PublishedSocialPost | null | NotSent>;
  /**
   * Where the account may post, on a platform whose declaration names a `destination` (Pinterest's boards, TikTok's
   * privacy levels): one of
   * them is chosen for the connection and given to publish as the credentials' `destination`.
   */
  destinations?(credentials: SocialCredentials): Promise<Destination[]>;
  /** The account's standing on a platform that counts limits against it, asked by the dry run. */
  standing?(credentials: SocialCredentials): Promise<AccountStanding>;
};

/** A limit the platform counts against the account, as it stands (Instagram's posts a day through its API). */
export type PlatformLimit = { what: string; used: number; limit: number };

/** Something the platform says of the account that bears on what it may post (TikTok's creator settings), in words. */
export type PlatformFact = { what: string; value: string };

/** What the platform says of the account before a publication, for the dry run: the limits it counts, and facts. */
type AccountStanding = { limits: PlatformLimit[]; facts?: PlatformFact[] };

/** A place an account may post to (a Pinterest board): the platform's id and its name as the person sees it. */
export type Destination = { id: string; name: string };

/** What findPublished answers when no post was ever sent under the key. */
export const notSent = 'not-sent';
export type NotSent = typeof notSent;

/** The platform refused and will refuse again (bad credentials, invalid content...); `reason` is shown to the user. */
export class SocialRejectedError extends RemoteRejectedError {
  readonly failureType = failureTypes.socialRejected;
  /**
   * What the platform (or we, before asking it) refused: the account's credentials, the server URL itself, or where
   * the posts go (Telegram's chat) when the credentials are good.
   */
  readonly about: 'credentials' | 'server' | 'destination';
  constructor(reason: string, about: 'credentials' | 'server' | 'destination' = 'credentials') {
    super(reason);
    this.about = about;
  }
}

/** The platform asked us to slow down; retry no sooner than `retryAfterMs`. */
export class SocialRateLimitedError extends RemoteRateLimitedError {
  readonly failureType = failureTypes.socialRateLimited;
}

/** A transient failure (5xx, timeout, connection error): retry on the normal ladder. */
export class SocialUnavailableError extends RemoteUnavailableError {
  readonly failureType: FailureType = failureTypes.socialUnavailable;
}

/**
 * A request that creates something (a post) was sent and no answer came (a timeout after it was written, the
 * connection reset after sending): the platform may or may not have made the post. Retried like an outage, but only
 * once the post has been looked up (SocialConnector.findPublished) or the platform guarantees a retry cannot post twice.
 */
export class SocialOutcomeUnknownError extends SocialUnavailableError {
  override readonly failureType: FailureType = failureTypes.socialOutcomeUnknown;
  override readonly outcomeUnknown = true;
}

/**
 * Not a failure: the platform has the post's media and is processing it before it can be posted. The attempt stops
 * here and the publication goes on after `checkAfterMs` (a durable timer in its workflow, not a sleeping activity),
 * from the media the connector noted (media-ledger.ts), so nothing is uploaded or posted twice. `detail` says, for
 * the attempt's history, what the platform has and what it is doing.
 */
export class MediaStillProcessing extends Error {
  readonly detail: string;
  readonly checkAfterMs: number;
  constructor(detail: string, checkAfterMs: number) {
    super(detail);
    this.name = 'MediaStillProcessing';
    this.detail = detail;
    this.checkAfterMs = checkAfterMs;
  }
}
