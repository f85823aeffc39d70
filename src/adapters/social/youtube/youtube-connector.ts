import { callSessionStore } from '../call-session-store.ts';
import { mediaLedger } from '../media-ledger.ts';
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
  type YouTubeCredentials,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { youTubeChannelOf, youTubeQuotaTimeZone, type YouTubeCall } from './youtube-api.ts';
import type { YouTubeEndpoints } from './youtube-oauth.ts';
import { uploadedYouTubeVideo, videosInsertUnits, youTubeVideoMadeBefore, type YouTubeUpload } from './youtube-video-upload.ts';
import { youTubeVisibilityOf } from './youtube-visibility.ts';

// The post's video to the connection's channel through the YouTube Data API v3
// (https://developers.google.com/youtube/v3/docs/videos/insert), uploaded with the resumable protocol
// (youtube-video-upload.ts): the post's text as the description, its first line as the title. A square or vertical
// video of three minutes or less is a Short (https://support.google.com/youtube/answer/15424877); nothing marks it so.
// YouTube takes no image posts through the API, so it gets the video or nothing.
//
// The video's privacy is public, it is declared not made for children, and, as our images and videos are generated,
// as containing synthetic media (YouTube asks creators to disclose it). A project Google has not audited has its
// uploads locked private whatever is asked (the catalogue and the docs say so, and the published attempt's detail,
// from the privacy YouTube answers).

/** `dailyQuota`: the units a day the operator's Google Cloud project has (YOUTUBE_DAILY_QUOTA). */
export type YouTubeConnectorOptions = PlatformHttpOptions & YouTubeEndpoints & { uploadChunkBytes: number; dailyQuota: number };

export type YouTubeConnector = SocialConnector & Required<Pick<SocialConnector, 'findPublished'>>;

// videos resource: a title of up to 100 characters, a description of up to 5000 bytes, neither with < or >.
const maxTitle = 100;
const maxDescriptionBytes = 5000;
const angleBrackets = /[<>]/g;
// People & Blogs: the category a video needs when nothing better is known.
const defaultCategory = '22';
const defaultPrivacy = 'public';

function credentialsOf(credentials: SocialCredentials): YouTubeCredentials {
  if (credentials.platform !== 'youtube') throw new SocialRejectedError(`the YouTube connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

/** The video's title and description, from the post's text. */
function videoTextOf(text: string): { title: string; description: string } {
  const clean = text.replace(angleBrackets, '').trim();
  const description = shortenText(clean, { bytes: maxDescriptionBytes });
  const title = shortenText(description.split('\n')[0]?.trim() || 'Untitled', { codePoints: maxTitle });
  return { title, description };
}

function publishedOf(id: string): PublishedSocialPost {
  return { externalPostId: id, url: `https://www.youtube.com/watch?v=${encodeURIComponent(id)}` };
}

/** The connector for YouTube. */
export function createYouTubeConnector(options: YouTubeConnectorOptions): YouTubeConnector {
  const http = createPlatformHttp(platformNames.youtube, options);
  const callOf = (credentials: YouTubeCredentials): YouTubeCall => ({ http, apiUrl: options.apiUrl, token: credentials.accessToken });

  function uploadOf(credentials: YouTubeCredentials, idempotencyKey: string, sessions: SessionStore, post?: SocialPost, metadata: object = {}): YouTubeUpload {
    const upload = { ...callOf(credentials), ledger: mediaLedger(sessions), idempotencyKey, metadata, chunkBytes: options.uploadChunkBytes };
    return { ...upload, spendQuota: post?.spendQuota };
  }

  return {
    platform: 'youtube',
    declaration: {
      platform: 'youtube',
      auth: 'oauth2',
      text: { max: maxDescriptionBytes, unit: 'characters' },
      // The Data API uploads videos only.
      images: { types: [], maxBytes: 0, maxCount: 0, altText: false },
      // The discovery document's videos.insert: video/*, up to 256 GiB. Over 15 minutes needs a verified channel.
      video: { types: ['video/mp4'], maxBytes: 256 * 1024 ** 3, maxDurationMs: 15 * 60_000 },
      threads: false,
      destination: null,
      settings: ['visibility', 'madeForKids'],
      // The project's daily quota (every upload of every connection draws on it), reset at midnight Pacific time.
      quota: { what: 'YouTube Data API units today', daily: options.dailyQuota, unitsPerPost: videosInsertUnits, timeZone: youTubeQuotaTimeZone },
      retriesNeverDuplicate: {
        guaranteed: true,
        how: 'The upload session is noted before its first byte; a retry asks YouTube where that session stands and resumes it, or gets the video it already made, instead of uploading again.',
      },
    },

    async verify(credentials) {
      return youTubeChannelOf(callOf(credentialsOf(credentials)));
    },

    preview(post) {
      const { description } = videoTextOf(post.text);
      return Promise.resolve({ text: description, count: Array.from(description).length, image: null });
    },

    async publish(credentials, post: SocialPost, sessions = callSessionStore()) {
      const account = credentialsOf(credentials);
      if (!post.video) throw new SocialRejectedError('YouTube takes only videos, and this post has no finished video to send');
      const { title, description } = videoTextOf(post.text);
      // The connection's settings, else public and not made for kids.
      const privacyStatus = account.settings?.visibility ?? defaultPrivacy;
      const metadata = {
        snippet: { title, description, categoryId: defaultCategory },
        status: { privacyStatus, selfDeclaredMadeForKids: account.settings?.madeForKids ?? false, containsSyntheticMedia: true },
      };
      const video = await uploadedYouTubeVideo(uploadOf(account, post.idempotencyKey, sessions, post, metadata), post.video);
      return { ...publishedOf(video.id), visibility: youTubeVisibilityOf(video.privacyStatus, privacyStatus) };
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      const account = credentialsOf(credentials);
      // Without the ledger nothing can be told.
      if (!sessions) return null;
      const made = await youTubeVideoMadeBefore(uploadOf(account, idempotencyKey, sessions));
      return made ? publishedOf(made) : notSent;
    },
  };
}
