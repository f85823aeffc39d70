import sharp from 'sharp';
import { callSessionStore } from '../call-session-store.ts';
import { shortenText } from '../shorten-text.ts';
import {
  SocialRejectedError,
  SocialUnavailableError,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
} from '../social-connector.ts';
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
import { createThreadsGraph, threadsAccountOf, type ThreadsGraphOptions } from './threads-graph.ts';
import { threadsMaxLinks, threadsText, threadsTextCount, threadsTextMax } from './threads-text.ts';
import { uniqueLinkCount } from '../link-count.ts';

// Threads' publishing API (https://developers.facebook.com/docs/threads/posts): a media container
// (POST /{user-id}/threads, TEXT, IMAGE or VIDEO, the image or video fetched by Threads from a public URL of ours),
// its status checked until FINISHED, the attempts apart on the workflow's timer (https://developers.facebook.com/docs/threads/troubleshooting#publishing-does-not-return-a-media-id),
// then POST /{user-id}/threads_publish, as Meta's container platforms publish (container-publication.ts); a post
// whose answer was lost is found among the account's threads
// (https://developers.facebook.com/docs/threads/retrieve-and-discover-posts/retrieve-posts).

/** An OAuth connection to Threads: its long-lived access token (which refreshes itself) and the Threads user id. */
export type ThreadsConnectorOptions = ThreadsGraphOptions;

type Image = NonNullable<SocialPost['image']>;

/** Threads' connector: `findPublished` answers the thread an earlier attempt with this key published, or null. */
export type ThreadsConnector = SocialConnector & { findPublished: NonNullable<SocialConnector['findPublished']> };

// "8 MB" (https://developers.facebook.com/docs/threads/posts#image-specifications), read as decimal megabytes, the
// stricter reading.
const maxImageBytes = 8_000_000;
const maxAltTextCodePoints = 1_000;
// https://developers.facebook.com/docs/threads/posts#video-specifications: up to 1 GB and 5 minutes, aspect ratios
// from 0.01:1 to 10:1, at most 1920 pixels wide.
const videoRules = { types: ['video/mp4' as const], maxBytes: 1_000_000_000, maxDurationMs: 300_000, aspectRatio: { min: 0.01, max: 10 } };
// Graph API's "object does not exist" (code 100, subcode 33): a container Threads no longer knows.
const unknownObject = { code: 100, subcode: 33 };
// "Media not found" on publish (code 24, subcode 4279009), which Threads answers for a container it has not finished
// propagating: not in its documentation, but met in practice and gone on a retry.
const notPropagated = { code: 24, subcode: 4279009 };

type Account = { userId: string; token: string };

function accountOf(credentials: SocialCredentials): Account {
  if (credentials.platform !== 'threads') throw new SocialRejectedError(`the Threads connector cannot use ${credentials.platform} credentials`);
  return { userId: encodeURIComponent(credentials.userId), token: credentials.accessToken };
}

async function imageFacts(image: Image): Promise<{ width: number; height: number }> {
  try {
    const { width, height } = await sharp(image.bytes).metadata();
    return { width, height };
  } catch {
    throw new SocialRejectedError('the image to post to Threads could not be read');
  }
}

/** The connector for Threads, at the Threads Graph API of `options.apiUrl` (Meta's by default). */
export function createThreadsConnector(options: ThreadsConnectorOptions): ThreadsConnector {
  const graph = createThreadsGraph(options);

  async function stateOf({ token }: Account, container: string): Promise<ContainerState> {
    const answer = await graph.get(`/v1.0/${encodeURIComponent(container)}`, { fields: 'status,error_message', access_token: token });
    if (answer.status === 400 && isGraphError(answer, unknownObject)) return { status: 'GONE', errorMessage: '' };
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [token]);
    const status = graph.textField(answer, 'status', 'the container status') as ContainerStatus;
    const errorMessage = typeof answer.body.error_message === 'string' ? answer.body.error_message : '';
    return { status, errorMessage };
  }

  async function createContainer(account: Account, post: SocialPost, text: string): Promise<string> {
    const params: Record<string, string> = { media_type: 'TEXT', text, access_token: account.token };
    // A part of a thread replies to the part before it
    // (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/create-replies).
    if (post.replyTo) params.reply_to_id = post.replyTo.parent.externalPostId;
    if (post.video) {
      params.media_type = 'VIDEO';
      params.video_url = await post.video.url();
    } else if (post.image && post.imageUrl) {
      params.media_type = 'IMAGE';
      params.image_url = await post.imageUrl();
    }
    const alt = shortenText((post.video ?? post.image)?.alt ?? '', { codePoints: maxAltTextCodePoints });
    if (params.media_type !== 'TEXT' && alt) params.alt_text = alt;
    const answer = await graph.post(`/v1.0/${account.userId}/threads`, params);
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [account.token]);
    return graph.textField(answer, 'id', 'the post');
  }

  /**
   * Threads' side of the account's containers: a published thread is found among the account's threads, a reply
   * among its replies (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/replies-and-conversations).
   */
  function containersOf(account: Account): ContainerPlatform {
    return {
      name: 'Threads',
      stateOf: (container) => stateOf(account, container),
      postOf: (entry) =>
        postAmong(
          graph,
          { name: 'Threads', path: `/v1.0/${account.userId}/${entry.reply ? 'replies' : 'threads'}`, textField: 'text', token: account.token },
          entry,
        ),
    };
  }

  async function publishContainer(account: Account, container: string): Promise<PublishedSocialPost> {
    const answer = await graph.post(`/v1.0/${account.userId}/threads_publish`, { creation_id: container, access_token: account.token }, { creates: true });
    if (answer.status === 400 && isGraphError(answer, notPropagated)) throw new SocialUnavailableError('Threads has not finished taking the post in yet');
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [account.token]);
    const id = graph.textField(answer, 'id', 'the post');
    return { externalPostId: id, url: await permalinkOf(graph, `/v1.0/${encodeURIComponent(id)}`, account.token) };
  }

  return {
    platform: 'threads',
    declaration: {
      platform: 'threads',
      auth: 'oauth2',
      text: { max: threadsTextMax, unit: 'weighted', maxLinks: threadsMaxLinks },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxImageBytes, maxCount: 1, altText: true },
      video: videoRules,
      threads: true,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how:
          'Each attempt notes the container it made before publishing it, and a retry asks Threads for that ' +
          "container's status first: a published one is found among the account's threads instead of being posted " +
          'again. Threads documents no idempotency of its own, nor what a second publication of one container does, ' +
          'so a retry that comes while Threads is still publishing could post twice.',
      },
    },

    verify: (credentials) => threadsAccountOf(graph, accountOf(credentials).token),

    async preview(post) {
      const text = threadsText(post.text);
      const image = post.image ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageFacts(post.image)) } : null;
      return { text, count: threadsTextCount(text), image };
    },

    async publish(credentials, post, sessions = callSessionStore()) {
      const account = accountOf(credentials);
      const text = threadsText(post.text);
      // A video is fetched by Threads from the signed link of ours it is given (`url`), as an image is.
      if (post.image && !post.video) {
        if (!post.imageUrl) throw new SocialRejectedError('Threads fetches the image from a public URL of ours, and none was given');
        await imageFacts(post.image);
        if (post.image.bytes.length > maxImageBytes) throw new SocialRejectedError(`the image is larger than Threads' ${maxImageBytes} bytes`);
      } else if (!post.video && !text.trim()) throw new SocialRejectedError('Threads needs text for a post without an image');
      const links = uniqueLinkCount(text);
      if (links > threadsMaxLinks) throw new SocialRejectedError(`Threads takes at most ${threadsMaxLinks} different links in a post; this one has ${links}`);

      return publishThroughContainer(containersOf(account), post, containerLedger(sessions), {
        entry: { textHash: textHashOf(text), ...(post.replyTo ? { reply: true } : {}) },
        create: () => createContainer(account, post, text),
        publish: (container) => publishContainer(account, container),
      });
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      if (!sessions) return null;
      return findPublishedThroughContainer(containersOf(accountOf(credentials)), containerLedger(sessions), idempotencyKey);
    },
  };
}
