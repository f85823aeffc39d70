import { callSessionStore } from '../call-session-store.ts';
import { mediaLedger, type MediaNote } from '../media-ledger.ts';
import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { shortenText } from '../shorten-text.ts';
import {
  notSent,
  SocialRejectedError,
  type PublishedSocialPost,
  type SessionStore,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialVideo,
  type TikTokCredentials,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { tikTokAccountOf, type TikTokCall } from './tiktok-api.ts';
import { creatorInfoOf, creatorRefusal, creatorFactsOf, privacyLevelsOf } from './tiktok-creator.ts';
import type { TikTokEndpoints } from './tiktok-oauth.ts';
import { tikTokVisibilityOf } from './tiktok-visibility.ts';
import {
  finalized,
  publishedOf,
  publishedOrWait,
  publishStatusOf,
  sendChunks,
  startPublish,
  uploadComplete,
  type TikTokUpload,
} from './tiktok-video-upload.ts';

// Videos through the Content Posting API's Direct Post
// (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post), with the privacy level the person
// chose for the connection: never a default, as TikTok's content sharing guidelines require the creator to choose
// (https://developers.tiktok.com/doc/content-sharing-guidelines). Before each new publish the creator's settings are
// read again (tiktok-creator.ts): a privacy level no longer offered, a video longer than the creator may post, or a
// creator TikTok will not take a post from now is refused before anything is sent; interactions the creator has turned
// off stay off. The post's text is the video's title; our videos are generated, so each is labelled AI-generated
// (`is_aigc`). TikTok takes no image posts this way (photos go through another endpoint): video or nothing.

export type TikTokConnectorOptions = PlatformHttpOptions & TikTokEndpoints & { uploadChunkBytes: number };

/** TikTok's connector, which also lists the privacy levels a connection may choose and looks for a post after a lost answer. */
export type TikTokConnector = SocialConnector & Required<Pick<SocialConnector, 'destinations' | 'findPublished'>>;

// post_info.title: "The maximum length is 2200 in UTF-16 runes".
const maxTitle = 2200;
// The cover: the frame a second in.
const coverMs = 1000;

function credentialsOf(credentials: SocialCredentials): TikTokCredentials {
  if (credentials.platform !== 'tiktok') throw new SocialRejectedError(`the TikTok connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

function privacyLevelOf(credentials: TikTokCredentials): string {
  if (!credentials.destination) {
    throw new SocialRejectedError(
      'Choose who may see this TikTok connection’s videos (PATCH /social-connections/{id} with a `destination`: one of its privacy levels)',
      'destination',
    );
  }
  return credentials.destination;
}

/** The post with who can see it: the privacy level it was posted with, the connection's (checked against the creator's before each new publish). */
const visible = (post: PublishedSocialPost, privacyLevel: string): PublishedSocialPost => ({ ...post, visibility: tikTokVisibilityOf(privacyLevel) });

const titleOf = (text: string) => shortenText(text.trim(), { utf16Units: maxTitle });

/** The connector for TikTok. */
export function createTikTokConnector(options: TikTokConnectorOptions): TikTokConnector {
  const http = createPlatformHttp(platformNames.tiktok, options);
  const callOf = (credentials: TikTokCredentials): TikTokCall => ({ http, apiUrl: options.apiUrl, token: credentials.accessToken });
  const uploadOf = (credentials: TikTokCredentials, idempotencyKey: string, sessions: SessionStore): TikTokUpload => ({
    ...callOf(credentials),
    ledger: mediaLedger(sessions),
    idempotencyKey,
    chunkBytes: options.uploadChunkBytes,
  });

  /** A new publish: the creator's settings checked, the init, every chunk. */
  async function newPublish(upload: TikTokUpload, privacyLevel: string, post: SocialPost, video: SocialVideo): Promise<MediaNote> {
    const creator = await creatorInfoOf(upload);
    const refusal = creatorRefusal(creator, privacyLevel, video.durationMs);
    if (refusal) throw new SocialRejectedError(refusal, 'destination');
    const postInfo = {
      title: titleOf(post.text),
      privacy_level: privacyLevel,
      disable_comment: creator.commentDisabled,
      disable_duet: creator.duetDisabled,
      disable_stitch: creator.stitchDisabled,
      video_cover_timestamp_ms: coverMs,
      brand_content_toggle: false,
      brand_organic_toggle: false,
      is_aigc: true,
    };
    const note = await startPublish(upload, postInfo, video, creator.username);
    const sent = await sendChunks(upload, note, video);
    // Refused at once: nothing to resume, and asking again would be refused again.
    if (sent === 'expired') throw new SocialRejectedError('TikTok refused the upload of the video as soon as it began');
    return sent;
  }

  return {
    platform: 'tiktok',
    declaration: {
      platform: 'tiktok',
      auth: 'oauth2',
      // The title's 2,200, counted in UTF-16 code units as TikTok does.
      text: { max: maxTitle, unit: 'characters' },
      // Direct Post of videos only.
      images: { types: [], maxBytes: 0, maxCount: 0, altText: false },
      // The media transfer guide's video restrictions: up to 4 GB and 10 minutes (the creator's own longest video is
      // checked before each post); 3 s is TikTok's shortest.
      video: { types: ['video/mp4'], maxBytes: 4_000_000_000, minDurationMs: 3_000, maxDurationMs: 600_000 },
      threads: false,
      destination: 'privacy level',
      retriesNeverDuplicate: {
        guaranteed: true,
        how: 'TikTok makes the post only once its upload is complete. Each attempt notes the publish before its first byte and every chunk TikTok acknowledges; a retry asks TikTok where that publish stands and waits for it or sends the rest, and starts a new one only when TikTok no longer takes the old upload, which never becomes a post.',
      },
    },

    async verify(credentials) {
      return tikTokAccountOf(callOf(credentialsOf(credentials)));
    },

    async destinations(credentials) {
      return privacyLevelsOf(await creatorInfoOf(callOf(credentialsOf(credentials))));
    },

    // The dry run shows what creator_info says now, as publishing will ask it again.
    async standing(credentials) {
      return { limits: [], facts: creatorFactsOf(await creatorInfoOf(callOf(credentialsOf(credentials)))) };
    },

    preview(post) {
      const title = titleOf(post.text);
      return Promise.resolve({ text: title, count: title.length, image: null });
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = credentialsOf(credentials);
      const privacyLevel = privacyLevelOf(account);
      if (!post.video) throw new SocialRejectedError('TikTok takes only videos, and this post has no finished video to send');
      const upload = uploadOf(account, post.idempotencyKey, sessions);
      let note = await upload.ledger.find(post.idempotencyKey);
      if (note) {
        const status = await publishStatusOf(upload, note.id);
        if (!uploadComplete(note, status)) {
          const sent = await sendChunks(upload, note, post.video, status.uploadedBytes);
          if (sent === 'expired') await upload.ledger.forget(post.idempotencyKey);
          note = sent === 'expired' ? undefined : sent;
        } else {
          const whole = note.finalized ? note : await finalized(upload, note);
          return visible(await publishedOrWait(upload, whole, status, 'TikTok is still processing the video.'), privacyLevel);
        }
      }
      note ??= await newPublish(upload, privacyLevel, post, post.video);
      return visible(await publishedOrWait(upload, note, await publishStatusOf(upload, note.id), 'Uploaded the video; TikTok is processing it.'), privacyLevel);
    },

    async findPublished(credentials, idempotencyKey, sessions): Promise<PublishedSocialPost | null | typeof notSent> {
      const account = credentialsOf(credentials);
      // Without the ledger nothing can be told.
      if (!sessions) return null;
      const upload = uploadOf(account, idempotencyKey, sessions);
      const note = await upload.ledger.find(idempotencyKey);
      if (!note) return notSent;
      const status = await publishStatusOf(upload, note.id);
      // The note stays (it goes after a day): an attempt that runs after all finds the same post, not a new publish.
      return status.status === 'PUBLISH_COMPLETE' ? publishedOf(note, status) : null;
    },
  };
}
