import { callSessionStore } from '../call-session-store.ts';
import { imageDimensions } from '../image-dimensions.ts';
import { firstLinkOf } from '../link-count.ts';
import { mediaLedger } from '../media-ledger.ts';
import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { sentPostNotes, textDigest } from '../sent-post-notes.ts';
import { shortenText } from '../shorten-text.ts';
import {
  notSent,
  SocialRejectedError,
  type PinterestCredentials,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { pinterestAccountOf, pinterestApi, pinterestBoardsOf, pinterestFailureOf, pinterestHeaders, type PinterestCall } from './pinterest-api.ts';
import type { PinterestEndpoints } from './pinterest-oauth.ts';
import { uploadedPinterestVideo } from './pinterest-video-upload.ts';

// Pins through Pinterest's API v5 (https://developers.pinterest.com/docs/api/v5/pins-create), to the board the
// person chose for the connection: the post's text as the Pin's description (its first words as the title), its
// first link as the Pin's link, the image in base64 (so Pinterest needs no link of ours) with its alt text, or the
// video through media registration (pinterest-video-upload.ts), its cover the frame a second in.
//
// Pinterest takes no idempotency key and a Pin carries nothing of ours but its text, so, as for LinkedIn, each Pin
// is noted before it is sent (sent-post-notes.ts), and after a lost answer the board's newest Pins
// (https://developers.pinterest.com/docs/api/v5/boards-list_pins) are searched for one with that description made
// since the note.

export type PinterestConnectorOptions = PlatformHttpOptions & PinterestEndpoints;

/** Pinterest's connector, which also lists the boards a connection may choose and looks for a Pin after a lost answer. */
export type PinterestConnector = SocialConnector & Required<Pick<SocialConnector, 'destinations' | 'findPublished'>>;

// PinCreate in the description: title up to 100, description 800, alt text 500, link 2048.
const maxTitle = 100;
const maxDescription = 800;
const maxAltText = 500;
const maxLink = 2048;
// Pinterest's clock and ours, when matching a Pin's creation against the note.
const clockSkewMs = 60_000;
// The board's newest Pins looked through after a lost answer: more than a connection pins while an answer is lost.
const pinsSearched = 50;
// A video Pin's cover: the frame a second in (Pinterest's default of none is refused).
const coverFrameSeconds = 1;

const sentPins = sentPostNotes('pinterestSent');

function credentialsOf(credentials: SocialCredentials): PinterestCredentials {
  if (credentials.platform !== 'pinterest') throw new SocialRejectedError(`the Pinterest connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

function boardOf(credentials: PinterestCredentials): string {
  if (!credentials.destination) {
    throw new SocialRejectedError('Choose the Pinterest board this connection pins to (PATCH /social-connections/{id} with a `destination`)', 'destination');
  }
  return credentials.destination;
}

/** What a Pin is made of the post's text. */
function pinTextOf(text: string): { title: string; description: string; link: string | undefined } {
  const description = shortenText(text.trim(), { codePoints: maxDescription });
  const title = shortenText(description.split('\n')[0] ?? '', { codePoints: maxTitle });
  const link = firstLinkOf(description);
  return { title, description, link: link && link.length <= maxLink && URL.canParse(link) ? link : undefined };
}

function publishedOf(id: string): PublishedSocialPost {
  return { externalPostId: id, url: `https://www.pinterest.com/pin/${encodeURIComponent(id)}/` };
}

/** The connector for Pinterest. */
export function createPinterestConnector(options: PinterestConnectorOptions): PinterestConnector {
  const http = createPlatformHttp(platformNames.pinterest, options);
  const callOf = (credentials: PinterestCredentials): PinterestCall => ({ http, apiUrl: options.apiUrl, token: credentials.accessToken });

  function mediaSourceOf(image: NonNullable<SocialPost['image']>) {
    return { source_type: 'image_base64', content_type: image.contentType, data: image.bytes.toString('base64') };
  }

  return {
    platform: 'pinterest',
    declaration: {
      platform: 'pinterest',
      auth: 'oauth2',
      text: { max: maxDescription, unit: 'characters' },
      // https://help.pinterest.com/en/business/article/pinterest-product-specs: up to 20 MB.
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 20 * 1024 * 1024, maxCount: 1, altText: true },
      // The same page: MP4, up to 2 GB, 4 seconds to 15 minutes, from 1:2 to 1.91:1.
      video: {
        types: ['video/mp4'],
        maxBytes: 2 * 1024 * 1024 * 1024,
        minDurationMs: 4_000,
        maxDurationMs: 15 * 60_000,
        aspectRatio: { min: 1 / 2, max: 1.91 },
      },
      threads: false,
      destination: 'board',
      retriesNeverDuplicate: {
        guaranteed: false,
        how: "Pinterest takes no idempotency key: before a retry the board's newest Pins are searched for one with the same description made since the attempt. A Pin edited or deleted meanwhile is not found.",
      },
    },

    async verify(credentials) {
      const { accountName, accountId } = await pinterestAccountOf(callOf(credentialsOf(credentials)));
      return { accountName, accountId };
    },

    async destinations(credentials) {
      return pinterestBoardsOf(callOf(credentialsOf(credentials)));
    },

    async preview(post) {
      const { description } = pinTextOf(post.text);
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.pinterest)) }
        : null;
      return { text: description, count: Array.from(description).length, image };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = credentialsOf(credentials);
      const board = boardOf(account);
      const call = callOf(account);
      const { title, description, link } = pinTextOf(post.text);
      const ledger = mediaLedger(sessions);
      const mediaSource = post.video
        ? {
            source_type: 'video_id',
            media_id: await uploadedPinterestVideo({ ...call, ledger, idempotencyKey: post.idempotencyKey }, post.video),
            cover_image_key_frame_time: coverFrameSeconds,
          }
        : post.image
          ? mediaSourceOf(post.image)
          : undefined;
      // Pinterest has no Pin without an image or a video.
      if (!mediaSource) throw new SocialRejectedError('Pinterest takes only Pins with an image or a video; this post has neither', 'destination');
      await sentPins.note(sessions, { key: post.idempotencyKey, digest: textDigest(description), image: true, at: Date.now() });
      const answer = await http.request({
        method: 'POST',
        url: pinterestApi(options.apiUrl, '/pins'),
        headers: pinterestHeaders(account.accessToken),
        json: {
          board_id: board,
          title,
          description,
          ...(link ? { link } : {}),
          ...(post.image && !post.video && post.image.alt ? { alt_text: shortenText(post.image.alt, { codePoints: maxAltText }) } : {}),
          media_source: mediaSource,
        },
        // Makes the Pin: sent and unanswered, its outcome is unknown, and the next attempt looks for it first.
        creates: true,
      });
      if (answer.status !== 201 && answer.status !== 200) throw pinterestFailureOf(answer, 'the Pin', [account.accessToken]);
      if (post.video) await ledger.forgetAfterPost(post.idempotencyKey);
      return publishedOf(http.textField(answer, 'id', 'the Pin'));
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      const account = credentialsOf(credentials);
      const sent = await sentPins.lookUp(sessions, idempotencyKey);
      // Nothing was about to be sent under this key: the attempt stopped before the Pin (a video's upload, say).
      if (sent === 'never sent') return notSent;
      if (sent === 'unknown') return null;
      const url = pinterestApi(options.apiUrl, `/boards/${encodeURIComponent(boardOf(account))}/pins`);
      url.search = new URLSearchParams({ page_size: String(pinsSearched) }).toString();
      const answer = await http.request({ method: 'GET', url, headers: pinterestHeaders(account.accessToken) });
      if (answer.status !== 200) throw pinterestFailureOf(answer, "listing the board's Pins", [account.accessToken]);
      const items = Array.isArray(answer.body.items) ? (answer.body.items as Array<Record<string, unknown>>) : [];
      const found = items.find(
        ({ id, description, created_at: createdAt }) =>
          typeof id === 'string' &&
          typeof description === 'string' &&
          textDigest(description) === sent.digest &&
          typeof createdAt === 'string' &&
          Date.parse(createdAt) >= sent.at - clockSkewMs,
      );
      return found ? publishedOf(found.id as string) : null;
    },
  };
}
