import { callSessionStore } from '../call-session-store.ts';
import { containerLedger, textHashOf } from '../meta/container-ledger.ts';
import {
  findPublishedThroughContainer,
  permalinkOf,
  postAmong,
  publishThroughContainer,
  type ContainerPlatform,
  type ContainerState,
  type ContainerStatus,
} from '../meta/container-publication.ts';
import { isGraphError } from '../meta/meta-graph.ts';
import { shortenText } from '../shorten-text.ts';
import {
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type PlatformLimit,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
} from '../social-connector.ts';
import { createInstagramGraph, instagramAccountOf, instagramVersion, type InstagramGraphOptions } from './instagram-graph.ts';
import { instagramImageOf, instagramMaxImageBytes } from './instagram-image.ts';

// Instagram's content publishing (https://developers.facebook.com/docs/instagram-platform/content-publishing): a media
// container (POST /{ig-user-id}/media: an image, or a Reel from the post's video, each fetched by Instagram from a
// link of ours), its status checked until FINISHED, then POST /{ig-user-id}/media_publish, as Meta's container
// platforms publish (container-publication.ts). The account's rolling 24-hour publishing limit is read before a
// container is made (GET /{ig-user-id}/content_publishing_limit), so a post over it waits instead of failing.

export type InstagramConnectorOptions = InstagramGraphOptions;

type Account = { userId: string; token: string };

// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#creating:
// a caption of at most 2,200 characters, 30 hashtags and 20 @ tags.
const maxCaption = 2_200;
const maxHashtags = 30;
const maxMentions = 20;
const maxAltTextCodePoints = 1_000;
// Reels (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#reel-specifications):
// MP4, 3 seconds to 15 minutes, up to 300 MB, aspect ratios from 0.01:1 to 10:1 (9:16 recommended).
const reelRules = {
  types: ['video/mp4' as const],
  maxBytes: 300_000_000,
  minDurationMs: 3_000,
  maxDurationMs: 15 * 60_000,
  aspectRatio: { min: 0.01, max: 10 },
};
// Graph API's "object does not exist" (code 100, subcode 33): a container Instagram no longer knows.
const unknownObject = { code: 100, subcode: 33 };
// The publishing limit reached (code 9, subcode 2207042) and a container not yet ready (code 9007, subcode 2207027):
// https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes
const limitReached = { code: 9, subcode: 2207042 };
const notReady = { code: 9007, subcode: 2207027 };
// The limit is a moving 24-hour window and Instagram does not say when the oldest post leaves it: look again in an hour.
const limitWaitMs = 60 * 60 * 1000;

function accountOf(credentials: SocialCredentials): Account {
  if (credentials.platform !== 'instagram') throw new SocialRejectedError(`the Instagram connector cannot use ${credentials.platform} credentials`);
  return { userId: encodeURIComponent(credentials.userId), token: credentials.accessToken };
}

function captionOf(text: string): string {
  return shortenText(text, { codePoints: maxCaption });
}

/** Refuses a caption Instagram would refuse for its tags: they are the author's words, so they are not cut. */
function checkTags(caption: string): void {
  const hashtags = caption.match(/(?:^|\s)#[^\s#]+/gu)?.length ?? 0;
  if (hashtags > maxHashtags) throw new SocialRejectedError(`Instagram takes at most ${maxHashtags} hashtags in a caption; this one has ${hashtags}`);
  const mentions = caption.match(/(?:^|\s)@[\w.]+/gu)?.length ?? 0;
  if (mentions > maxMentions) throw new SocialRejectedError(`Instagram takes at most ${maxMentions} @ mentions in a caption; this one has ${mentions}`);
}

const limitWhat = 'posts published through the API in the last 24 hours';

/** The connector for Instagram, at the Instagram Graph API of `options.apiUrl` (Meta's by default). */
export function createInstagramConnector(options: InstagramConnectorOptions): SocialConnector {
  const graph = createInstagramGraph(options);
  const path = (...parts: string[]) => `/${instagramVersion}/${parts.join('/')}`;

  async function publishingLimit({ userId, token }: Account): Promise<PlatformLimit> {
    const answer = await graph.get(path(userId, 'content_publishing_limit'), { fields: 'quota_usage,config', access_token: token });
    if (answer.status !== 200) throw graph.failureOf(answer, 'the publishing limit', [token]);
    const [usage] = Array.isArray(answer.body.data) ? (answer.body.data as Array<Record<string, unknown>>) : [];
    const used = usage?.quota_usage;
    const total = (usage?.config as Record<string, unknown> | undefined)?.quota_total;
    if (typeof used !== 'number' || typeof total !== 'number') throw new SocialUnavailableError('Instagram answered the publishing limit without its figures');
    return { what: limitWhat, used, limit: total };
  }

  async function stateOf({ token }: Account, container: string): Promise<ContainerState> {
    const answer = await graph.get(path(encodeURIComponent(container)), { fields: 'status_code,status', access_token: token });
    if (answer.status === 400 && isGraphError(answer, unknownObject)) return { status: 'GONE', errorMessage: '' };
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [token]);
    const status = graph.textField(answer, 'status_code', 'the container status') as ContainerStatus;
    return { status, errorMessage: typeof answer.body.status === 'string' ? answer.body.status : '' };
  }

  async function createContainer(account: Account, post: SocialPost, caption: string): Promise<string> {
    // A post over the limit waits for it here, before Instagram is given anything.
    const { used, limit } = await publishingLimit(account);
    if (used >= limit) throw new SocialRateLimitedError(`Instagram's limit of ${limit} ${limitWhat} is reached`, limitWaitMs);
    const params: Record<string, string> = { caption, access_token: account.token };
    if (post.video) {
      params.media_type = 'REELS';
      params.video_url = await post.video.url();
      params.share_to_feed = 'true';
    } else if (post.image) {
      if (!post.copyLink) throw new SocialRejectedError('Instagram fetches the image from a public URL of ours, and none can be made');
      params.image_url = await post.copyLink((await instagramImageOf(post.image.bytes)).bytes, 'image/jpeg');
      const alt = shortenText(post.image.alt, { codePoints: maxAltTextCodePoints });
      if (alt) params.alt_text = alt;
    }
    const answer = await graph.post(path(account.userId, 'media'), params);
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [account.token]);
    return graph.textField(answer, 'id', 'the post');
  }

  async function publishContainer(account: Account, container: string): Promise<PublishedSocialPost> {
    const answer = await graph.post(path(account.userId, 'media_publish'), { creation_id: container, access_token: account.token }, { creates: true });
    if (isGraphError(answer, limitReached)) throw new SocialRateLimitedError(`Instagram's limit of ${limitWhat} is reached`, limitWaitMs);
    if (isGraphError(answer, notReady)) throw new SocialUnavailableError('Instagram has not finished taking the post in yet');
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [account.token]);
    const id = graph.textField(answer, 'id', 'the post');
    return { externalPostId: id, url: await permalinkOf(graph, path(encodeURIComponent(id)), account.token) };
  }

  /** Instagram's side of the account's containers: a published one is found among the account's media. */
  function containersOf(account: Account): ContainerPlatform {
    return {
      name: 'Instagram',
      stateOf: (container) => stateOf(account, container),
      postOf: (entry) => postAmong(graph, { name: 'Instagram', path: path(account.userId, 'media'), textField: 'caption', token: account.token }, entry),
    };
  }

  return {
    platform: 'instagram',
    declaration: {
      platform: 'instagram',
      auth: 'oauth2',
      text: { max: maxCaption, unit: 'characters' },
      images: { types: ['image/jpeg'], maxBytes: instagramMaxImageBytes, maxCount: 1, altText: true },
      video: reelRules,
      threads: false,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how:
          'Each attempt notes the container it made before publishing it, and a retry asks Instagram for that ' +
          "container's status first: a published one is found among the account's media instead of being posted " +
          'again. Instagram documents no idempotency of its own, so a retry that comes while Instagram is still ' +
          'publishing could post twice.',
      },
    },

    verify: (credentials) => instagramAccountOf(graph, accountOf(credentials).token),

    async preview(post) {
      const text = captionOf(post.text);
      const sent = post.image ? await instagramImageOf(post.image.bytes) : null;
      const image = sent ? { type: 'image/jpeg', bytes: sent.bytes.length, width: sent.width, height: sent.height } : null;
      return { text, count: Array.from(text).length, image };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = accountOf(credentials);
      const caption = captionOf(post.text);
      checkTags(caption);
      if (!post.video && !post.image) throw new SocialRejectedError('Instagram posts carry an image or a video, and this one has neither');
      return publishThroughContainer(containersOf(account), post, containerLedger(sessions), {
        entry: { textHash: textHashOf(caption) },
        create: () => createContainer(account, post, caption),
        publish: (container) => publishContainer(account, container),
      });
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      if (!sessions) return null;
      return findPublishedThroughContainer(containersOf(accountOf(credentials)), containerLedger(sessions), idempotencyKey);
    },

    standing: async (credentials) => ({ limits: [await publishingLimit(accountOf(credentials))] }),
  };
}
