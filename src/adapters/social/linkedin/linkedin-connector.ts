import { createLinkedInApi, linkedInFailureOf, type LinkedInOptions } from './linkedin-api.ts';
import { createLinkedInAuthors } from './linkedin-author.ts';
import { linkedInCommentaryOf, maxCommentaryChars } from './linkedin-commentary.ts';
import { linkedInImageOf, maxImageBytes, type LinkedInImage } from './linkedin-image.ts';
import { sentPostNotes, textDigest } from '../sent-post-notes.ts';
import { uploadedLinkedInVideo } from './linkedin-video-upload.ts';
import { callSessionStore } from '../call-session-store.ts';
import { mediaLedger } from '../media-ledger.ts';
import type { Answer } from '../platform-http.ts';
import {
  notSent,
  SocialRejectedError,
  SocialUnavailableError,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type LinkedInCredentials,
} from '../social-connector.ts';

// LinkedIn's Posts API (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api)
// with images through the Images API
// (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api): initialize an
// upload for the author, PUT the bytes to the upload URL LinkedIn gives, then create the post naming the image; or
// the post's video instead, through the Videos API (linkedin-video-upload.ts), once LinkedIn has processed it. The
// author is the member or an organisation (the connection's credentials say which, see linkedin-author.ts).

/**
 * LinkedIn's connector: `findPublished` looks for the post an earlier attempt of publication `idempotencyKey`
 * created among the author's recent posts (null when none was sent or none is there), and throws SocialRejectedError
 * when LinkedIn will not list the author's posts (a member's need r_member_social, which LinkedIn grants to approved
 * partners only).
 */
export type LinkedInConnector = SocialConnector & { findPublished: NonNullable<SocialConnector['findPublished']> };

// How far LinkedIn's clock may be behind ours when matching a post's creation time against when we sent it (both
// keep to NTP; a minute also bounds how old a post of the same text from another publication can be and be taken).
const clockSkewMs = 60_000;
// The most recent posts of the author that are searched: more than a connection publishes while an answer is lost.
const postsSearched = 50;
const postUrn = /^urn:li:(?:share|ugcPost):\d{1,30}$/;
// The field name is what sessions written before the notes were shared already hold.
const sentPosts = sentPostNotes('linkedInSent');

function credentialsOf(credentials: SocialCredentials): LinkedInCredentials {
  if (credentials.platform !== 'linkedin') throw new SocialRejectedError(`the LinkedIn connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

/** The post's id, from the `x-restli-id` header of the 201 that created it. */
function postIdOf(answer: Answer): string {
  const id = answer.headers['x-restli-id'];
  if (typeof id !== 'string' || !postUrn.test(id)) throw new SocialUnavailableError(`LinkedIn answered the post (${answer.status}) without its id`);
  return id;
}

function publishedOf(id: string): PublishedSocialPost {
  return { externalPostId: id, url: `https://www.linkedin.com/feed/update/${id}` };
}

/** The connector for LinkedIn; its base URLs are configuration, so the same code runs against the tests' fake. */
export function createLinkedInConnector(options: LinkedInOptions): LinkedInConnector {
  const api = createLinkedInApi(options);
  const authors = createLinkedInAuthors(options);

  async function uploadImage(token: string, author: string, image: LinkedInImage): Promise<string> {
    const initialized = await api.call({
      method: 'POST',
      path: '/rest/images',
      query: { action: 'initializeUpload' },
      json: { initializeUploadRequest: { owner: author } },
      token,
    });
    if (initialized.status !== 200) throw linkedInFailureOf(initialized, 'the image', [token]);
    const value = (initialized.body.value ?? {}) as Record<string, unknown>;
    const urn = value.image;
    if (typeof urn !== 'string' || !urn.startsWith('urn:li:image:'))
      throw new SocialUnavailableError('LinkedIn answered the image upload without its image URN');
    const uploaded = await api.http.request({
      method: 'PUT',
      url: api.uploadUrlOf(value.uploadUrl),
      headers: { authorization: `Bearer ${token}`, 'content-type': image.contentType },
      body: image.bytes,
    });
    if (uploaded.status !== 200 && uploaded.status !== 201) throw linkedInFailureOf(uploaded, 'the image', [token]);
    return urn;
  }

  return {
    platform: 'linkedin',
    declaration: {
      platform: 'linkedin',
      auth: 'oauth2',
      text: { max: maxCommentaryChars, unit: 'characters' },
      // One image a post: several make a MultiImage post, another API.
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxImageBytes, maxCount: 1, altText: true },
      // The Videos API's specifications (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api):
      // MP4, 75 KB to 500 MB, 3 seconds to 30 minutes; shared videos from 1:2.4 to 2.4:1.
      video: {
        types: ['video/mp4'],
        maxBytes: 500 * 1024 * 1024,
        minBytes: 75 * 1024,
        minDurationMs: 3_000,
        maxDurationMs: 30 * 60_000,
        aspectRatio: { min: 1 / 2.4, max: 2.4 },
      },
      threads: false,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how:
          'LinkedIn has no idempotency key. After an attempt whose answer was lost, the connector looks among the ' +
          "author's 50 most recent posts for one with the same text (and media or none) created since it was sent; " +
          'a post edited or deleted meanwhile is not found, and one of the same text posted within the minute before ' +
          'is taken for it. Listing needs r_organization_social for an organisation and ' +
          'r_member_social, which LinkedIn grants to approved partners only, for a member: without it such an attempt ' +
          "fails rather than risk a second post. An attempt that stopped before its post (during a video's upload or " +
          'processing) is sent again: a note written just before each post shows none was about to be sent.',
      },
    },

    async verify(credentials) {
      const { accessToken, author, app } = credentialsOf(credentials);
      // A token of the organisation app (Community Management alone) has no OpenID scope.
      const member = await authors.member(accessToken, app === 'authors' ? 'profile' : 'openid');
      const { accountName, accountId } = await authors.authorFor({ accessToken, member, requested: author });
      return { accountName, accountId };
    },

    async preview(post) {
      const { text, count } = linkedInCommentaryOf(post.text);
      const image = post.image ? await linkedInImageOf(post.image) : undefined;
      return { text, count, image: image ? { type: image.contentType, bytes: image.bytes.length, width: image.width, height: image.height } : null };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const { accessToken, author } = credentialsOf(credentials);
      const { commentary } = linkedInCommentaryOf(post.text);
      const ledger = mediaLedger(sessions);
      const upload = { api, token: accessToken, author, ledger, idempotencyKey: post.idempotencyKey };
      const image = !post.video && post.image ? await linkedInImageOf(post.image) : undefined;
      const media = post.video
        ? { id: await uploadedLinkedInVideo(upload, post.video) }
        : image
          ? { id: await uploadImage(accessToken, author, image), altText: image.alt }
          : undefined;
      await sentPosts.note(sessions, { key: post.idempotencyKey, digest: textDigest(commentary), image: media !== undefined, at: Date.now() });
      const answer = await api.call({
        method: 'POST',
        path: '/rest/posts',
        json: {
          author,
          commentary,
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
          ...(media ? { content: { media } } : {}),
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
        },
        token: accessToken,
        creates: true,
      });
      if (answer.status !== 201) throw linkedInFailureOf(answer, 'the post', [accessToken]);
      if (post.video) await ledger.forgetAfterPost(post.idempotencyKey);
      return publishedOf(postIdOf(answer));
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      const { accessToken, author } = credentialsOf(credentials);
      const sent = await sentPosts.lookUp(sessions, idempotencyKey);
      // Nothing was about to be sent under this key: the attempt stopped before the post (a video's upload, say).
      if (sent === 'never sent') return notSent;
      // The notes of the last day are not all there: nothing can be told.
      if (sent === 'unknown') return null;
      // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#find-posts-by-authors
      const answer = await api.call({
        method: 'GET',
        path: '/rest/posts',
        query: { author, q: 'author', count: String(postsSearched), sortBy: 'CREATED' },
        token: accessToken,
      });
      if (answer.status !== 200) throw linkedInFailureOf(answer, "listing the author's posts", [accessToken]);
      const elements = Array.isArray(answer.body.elements) ? (answer.body.elements as Record<string, unknown>[]) : [];
      const found = elements.find((element) => {
        const { id, commentary, createdAt, lifecycleState, content } = element;
        const hasImage = typeof (content as { media?: { id?: unknown } } | undefined)?.media?.id === 'string';
        return (
          typeof id === 'string' &&
          postUrn.test(id) &&
          typeof commentary === 'string' &&
          textDigest(commentary) === sent.digest &&
          typeof createdAt === 'number' &&
          createdAt >= sent.at - clockSkewMs &&
          lifecycleState === 'PUBLISHED' &&
          hasImage === sent.image
        );
      });
      return found ? publishedOf(found.id as string) : null;
    },
  };
}
