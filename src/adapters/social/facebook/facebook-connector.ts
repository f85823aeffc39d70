import { callSessionStore } from '../call-session-store.ts';
import { imageDimensions } from '../image-dimensions.ts';
import { firstLinkOf } from '../link-count.ts';
import { mediaLedger, nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import { isGraphError, type MetaGraph } from '../meta/meta-graph.ts';
import { encodeMultipart, httpsLinkOf, imageFileName, type Answer } from '../platform-http.ts';
import { sentPostNotes, textDigest } from '../sent-post-notes.ts';
import { shortenText } from '../shorten-text.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialRejectedError,
  type FacebookCredentials,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialVideo,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { createFacebookGraph, facebookPagesOf, facebookPath, facebookUserOf, type FacebookGraphOptions } from './facebook-graph.ts';
import { heldPageToken } from './facebook-page-token.ts';
import { uploadedFacebookVideo } from './facebook-video-upload.ts';

// Posts on a Facebook Page (https://developers.facebook.com/docs/pages-api/posts), made with the Page's own token: a
// text post (`POST /{page-id}/feed`, its first link previewed), a photo (`POST /{page-id}/photos`, the file in the
// request), or a video (`POST /{page-id}/videos` naming a file uploaded through the Resumable Upload API, then waited
// for until Facebook has processed it). Facebook takes no idempotency key: each post is noted before it is sent, and
// after a lost answer the Page's recent posts are searched for it.

export type FacebookConnectorOptions = FacebookGraphOptions & {
  /** The Meta app's id (FACEBOOK_CLIENT_ID), under which video uploads are opened; null where none is configured. */
  appId: string | null;
  /** The Video API's host (FACEBOOK_VIDEO_API_URL), where a Page's video is published. */
  videoApiUrl: string;
};

// https://developers.facebook.com/docs/graph-api/reference/page/feed/#publish: a post's message, at most 63,206 characters.
const maxMessage = 63_206;
// https://developers.facebook.com/docs/graph-api/reference/page/photos/#requirements: JPEG or PNG, at most 4 MB.
const maxPhotoBytes = 4_000_000;
// https://www.facebook.com/help/1137954446221235 (Page video specs): up to 10 GB and 240 minutes, 9:16 to 16:9.
const videoRules = {
  types: ['video/mp4' as const],
  maxBytes: 10_000_000_000,
  maxDurationMs: 240 * 60_000,
  aspectRatio: { min: 9 / 16, max: 16 / 9 },
};
// A processing video is looked at again on the workflow's timer; half an hour in processing fails it.
const processingLimitMs = 30 * 60 * 1000;
const clockSkewMs = 60_000;
const permalinkMaxChars = 2_048;

const sentPosts = sentPostNotes('facebookSent');

/** A post's or video's page on Facebook: a video's permalink_url comes relative to the site (`/{page}/videos/{id}/`). */
function facebookLinkOf(permalink: unknown): string | undefined {
  const site = 'https://www.facebook.com';
  return typeof permalink === 'string' && URL.canParse(permalink, site) ? httpsLinkOf(new URL(permalink, site).toString(), permalinkMaxChars) : undefined;
}

function credentialsOf(credentials: SocialCredentials): FacebookCredentials {
  if (credentials.platform !== 'facebook') throw new SocialRejectedError(`the Facebook connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

function pageOf(credentials: FacebookCredentials): string {
  if (!credentials.destination) {
    throw new SocialRejectedError('Choose the Facebook Page this connection posts to (PATCH /social-connections/{id} with a `destination`)', 'destination');
  }
  return credentials.destination;
}

const messageOf = (text: string) => shortenText(text.trim(), { codePoints: maxMessage });

type Page = { id: string; token: string };

/** Facebook refused the Page token itself (code 190): nothing was made, and a token derived again may be taken. */
class PageTokenRefused extends SocialRejectedError {}

/** The connector for Facebook Pages. */
export function createFacebookConnector(options: FacebookConnectorOptions): SocialConnector {
  const graph: MetaGraph = createFacebookGraph(options);

  /** The error a failed answer to a request made with the Page's token stands for. */
  function pageFailureOf(answer: Answer, what: string, page: Page): Error {
    const failure = graph.failureOf(answer, what, [page.token]);
    return failure instanceof SocialRejectedError && isGraphError(answer, { code: 190 }) ? new PageTokenRefused(failure.reason) : failure;
  }

  async function permalinkOf(page: Page, id: string): Promise<string | undefined> {
    const answer = await graph.get(facebookPath(id), { fields: 'permalink_url', access_token: page.token }).catch(() => undefined);
    return answer?.status === 200 ? facebookLinkOf(answer.body.permalink_url) : undefined;
  }

  async function made(answer: Answer, page: Page, field: 'id' | 'post_id'): Promise<PublishedSocialPost> {
    if (answer.status !== 200) throw pageFailureOf(answer, 'the post', page);
    const named = answer.body[field];
    const id = typeof named === 'string' && named ? named : graph.textField(answer, 'id', 'the post');
    return { externalPostId: id, url: await permalinkOf(page, id) };
  }

  async function postPhoto(page: Page, post: SocialPost, image: NonNullable<SocialPost['image']>, message: string): Promise<PublishedSocialPost> {
    const form = new FormData();
    form.set('message', message);
    form.set('published', 'true');
    form.set('access_token', page.token);
    form.set('source', new Blob([new Uint8Array(image.bytes)], { type: image.contentType }), imageFileName(image.contentType));
    const { body, contentType } = await encodeMultipart(form);
    const answer = await graph.send(facebookPath(page.id, 'photos'), {
      method: 'POST',
      headers: { 'content-type': contentType, accept: 'application/json' },
      body,
      creates: true,
    });
    // A photo's answer names the photo (`id`) and the post showing it (`post_id`): the post is what was published.
    return made(answer, page, 'post_id');
  }

  async function postText(page: Page, message: string): Promise<PublishedSocialPost> {
    const link = firstLinkOf(message);
    const answer = await graph.post(facebookPath(page.id, 'feed'), { message, ...(link ? { link } : {}), access_token: page.token }, { creates: true });
    return made(answer, page, 'id');
  }

  /** The video Facebook made of the upload, once it is processed: until then the attempt stops for the workflow's timer. */
  async function processedVideo(page: Page, note: MediaNote & { madeId: string }, ledger: MediaLedger, key: string): Promise<PublishedSocialPost> {
    const answer = await graph.get(facebookPath(note.madeId), { fields: 'status,permalink_url', access_token: page.token });
    if (answer.status !== 200) throw pageFailureOf(answer, 'the video', page);
    const status = (answer.body.status ?? {}) as Record<string, unknown>;
    if (status.video_status === 'error') {
      await ledger.forget(key);
      throw new SocialRejectedError('Facebook could not process the video');
    }
    if (status.video_status !== 'ready') {
      if (Date.now() - note.madeAt > processingLimitMs) throw new SocialRejectedError('Facebook was still processing the video 30 minutes after it was sent');
      throw new MediaStillProcessing('Uploaded the video; Facebook is processing it.', nextCheckAfterMs(note.madeAt));
    }
    await ledger.forgetAfterPost(key);
    return { externalPostId: note.madeId, url: facebookLinkOf(answer.body.permalink_url) };
  }

  async function postVideo(
    page: Page,
    account: FacebookCredentials,
    post: SocialPost,
    video: SocialVideo,
    message: string,
    sessions: Parameters<typeof mediaLedger>[0],
  ) {
    const ledger = mediaLedger(sessions);
    const key = post.idempotencyKey;
    const noted = await ledger.find(key);
    if (noted?.madeId) return processedVideo(page, { ...noted, madeId: noted.madeId }, ledger, key);
    if (!options.appId) throw new SocialRejectedError('This service is not set up for Facebook (FACEBOOK_CLIENT_ID)');
    const handle = await uploadedFacebookVideo({ graph, appId: options.appId, userToken: account.accessToken, ledger, idempotencyKey: key }, video);
    await sentPosts.note(sessions, { key, digest: textDigest(message), image: true, at: Date.now() });
    // The Video API takes the Page's video on its own host (https://developers.facebook.com/docs/video-api/guides/publishing).
    const answer = await graph.post(
      `${options.videoApiUrl}${facebookPath(page.id, 'videos')}`,
      {
        fbuploader_video_file_chunk: handle,
        title: shortenText(message.split('\n')[0] ?? '', { codePoints: 255 }),
        description: message,
        access_token: page.token,
      },
      { creates: true },
    );
    if (answer.status !== 200) throw pageFailureOf(answer, 'the video', page);
    const madeId = graph.textField(answer, 'id', 'the video');
    // Processing is timed from now, not from the upload's start, so a long upload does not use up the wait.
    const note = { ...((await ledger.find(key)) ?? { id: handle }), madeId, finalized: true, madeAt: Date.now() };
    await ledger.note(key, note);
    return processedVideo(page, note, ledger, key);
  }

  return {
    platform: 'facebook',
    declaration: {
      platform: 'facebook',
      auth: 'oauth2',
      text: { max: maxMessage, unit: 'characters' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxPhotoBytes, maxCount: 1, altText: false },
      video: videoRules,
      threads: false,
      destination: 'page',
      retriesNeverDuplicate: {
        guaranteed: false,
        how:
          "Facebook takes no idempotency key: each post is noted before it is sent, and before a retry the Page's " +
          'recent posts are searched for one with the same text made since. A post edited or deleted meanwhile is not found.',
      },
    },

    verify: (credentials) => facebookUserOf(graph, credentialsOf(credentials).accessToken),

    destinations: (credentials) => facebookPagesOf(graph, credentialsOf(credentials).accessToken),

    async preview(post) {
      const text = messageOf(post.text);
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.facebook)) }
        : null;
      return { text, count: Array.from(text).length, image };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = credentialsOf(credentials);
      const pageId = pageOf(account);
      const message = messageOf(post.text);
      if (!post.video && !post.image && !message) throw new SocialRejectedError('A Facebook post needs text, an image or a video; this one has none');
      const publishAs = async (fresh: boolean) => {
        const page = { id: pageId, token: await heldPageToken(graph, sessions, account.accessToken, pageId, fresh) };
        if (post.video) return postVideo(page, account, post, post.video, message, sessions);
        await sentPosts.note(sessions, { key: post.idempotencyKey, digest: textDigest(message), image: Boolean(post.image), at: Date.now() });
        return post.image ? postPhoto(page, post, post.image, message) : postText(page, message);
      };
      try {
        return await publishAs(false);
      } catch (error) {
        // A Page token refused made nothing: the held one is derived again, once.
        if (error instanceof PageTokenRefused) return publishAs(true);
        throw error;
      }
    },

    async findPublished(credentials, idempotencyKey, sessions = callSessionStore()) {
      const account = credentialsOf(credentials);
      const sent = await sentPosts.lookUp(sessions, idempotencyKey);
      if (sent === 'never sent') return notSent;
      if (sent === 'unknown') return null;
      // A photo without a message is one of any such posts made meanwhile: it cannot be told.
      if (sent.digest === textDigest('')) return null;
      const pageId = pageOf(account);
      const page = { id: pageId, token: await heldPageToken(graph, sessions, account.accessToken, pageId) };
      const since = String(Math.floor((sent.at - clockSkewMs) / 1000));
      // A video whose answer was lost is among the Page's videos even while Facebook processes it, before its post is
      // in the feed (https://developers.facebook.com/docs/graph-api/reference/page/videos#reading).
      const video = (await mediaLedger(sessions).find(idempotencyKey))?.uploadToken !== undefined;
      const list = video ? { edge: 'videos', text: 'description' } : { edge: 'feed', text: 'message' };
      const answer = await graph.get(facebookPath(pageId, list.edge), {
        fields: `id,${list.text},created_time,permalink_url`,
        since,
        access_token: page.token,
      });
      if (answer.status !== 200) throw graph.failureOf(answer, 'the list of posts', [page.token]);
      const posts = Array.isArray(answer.body.data) ? (answer.body.data as Array<Record<string, unknown>>) : [];
      const found = posts.find((candidate) => {
        const text = candidate[list.text];
        return typeof candidate.id === 'string' && textDigest(typeof text === 'string' ? text : '') === sent.digest;
      });
      return found ? { externalPostId: found.id as string, url: facebookLinkOf(found.permalink_url) } : null;
    },
  };
}
