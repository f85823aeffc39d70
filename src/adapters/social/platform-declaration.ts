import type { SocialPlatform } from './social-platforms.ts';

// What each platform takes, declared once by its connector: the catalogue (GET /social-platforms), the dry run and
// the publish path all read this, so what a client is told in advance is what the connector does.

/** How a platform counts a post's text: grapheme clusters (Bluesky, Mastodon), X's weighted count, or characters. */
type TextUnit = 'graphemes' | 'weighted' | 'characters';

/** How a connection to the platform is made. */
type PlatformAuth = 'token' | 'app-password' | 'oauth2';

export type PlatformDeclaration = {
  platform: SocialPlatform;
  auth: PlatformAuth;
  text: {
    /** The most the platform takes, in `unit`. */
    max: number;
    unit: TextUnit;
    /** What every http(s) link counts for in `unit`, whatever its length, on a platform that counts links so (Mastodon: 23). */
    linkLength?: number;
    /** The most different links one post may carry, where the platform refuses more (Threads: 5). */
    maxLinks?: number;
  };
  images: {
    types: Array<'image/png' | 'image/jpeg'>;
    /** The largest image file the platform takes (the connector shrinks larger ones where it can, see `resized`). */
    maxBytes: number;
    maxCount: number;
    /** Whether the image carries a description (alt text) to the platform. */
    altText: boolean;
  };
  /** What video the platform takes (a post's video goes instead of its image), or null where it takes none. */
  video: VideoRules | null;
  /** Whether the platform links posts into a thread (replies to one's own post). */
  threads: boolean;
  /**
   * What a connection chooses its posts go to, where an account has several places (Pinterest: `board`, Facebook: `page`) or ways
   * (TikTok: `privacy level`, who may see the video), listed by
   * the connector's `destinations`; null where posts go to the account itself (or the place its credentials name).
   */
  destination: 'board' | 'page' | 'privacy level' | null;
  /** The connection settings the platform takes (PATCH /social-connections/{id}, ConnectionSettings); none where absent. */
  settings?: Array<'visibility' | 'madeForKids'>;
  /**
   * Whether a retry after an attempt whose outcome is unknown (the request was sent, no answer came) can never post
   * twice, and how (shown to clients in the catalogue).
   */
  /**
   * A daily quota of API units the platform counts against the operator's app, shared by every connection of every
   * workspace (YouTube's per Google Cloud project), where it has one: `what` the units are called, `daily` how many
   * the app has, `unitsPerPost` what one post costs, and `timeZone` where its day begins again at midnight. The
   * publish activity counts what the connector spends (SocialPost.spendQuota) and waits for the next day rather than
   * start a post that would not fit; the dry run shows the count.
   */
  quota?: PlatformQuota;
  retriesNeverDuplicate: {
    guaranteed: boolean;
    how: string;
    /**
     * When the guarantee rests on the platform remembering our idempotency key for a while (Mastodon: an hour): how
     * long after the unanswered attempt began a retry is still covered. Past it the post is not sent again.
     */
    withinMs?: number;
  };
};

export type PlatformQuota = { what: string; daily: number; unitsPerPost: number; timeZone: string };

/**
 * The videos a platform takes, as its reference documents them: a post's video outside these is caught by the dry
 * run (the connector sends the file as it is, never re-encoded). A limit the platform does not document is absent.
 */
export type VideoRules = {
  types: Array<'video/mp4'>;
  /** The largest file, in bytes. */
  maxBytes: number;
  /** The smallest file, in bytes. */
  minBytes?: number;
  minDurationMs?: number;
  maxDurationMs?: number;
  /** The narrowest and widest shapes taken, as width ÷ height (9:16 is 0.5625). */
  aspectRatio?: { min: number; max: number };
};
