import sharp from 'sharp';
import { callSessionStore } from '../call-session-store.ts';
import { httpsLinkOf, type Answer } from '../platform-http.ts';
import { shortenText } from '../shorten-text.ts';
import { nextCheckAfterMs } from '../media-ledger.ts';
import {
  MediaStillProcessing,
  SocialRejectedError,
  SocialUnavailableError,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  notSent,
} from '../social-connector.ts';
import { containerLedger, textHashOf, type ContainerLedger, type LedgerEntry } from './threads-container-ledger.ts';
import { createThreadsGraph, graphErrorOf, threadsAccountOf, type ThreadsGraphOptions } from './threads-graph.ts';
import { threadsMaxLinks, threadsText, threadsTextCount, threadsTextMax } from './threads-text.ts';
import { uniqueLinkCount } from '../link-count.ts';

// Threads' publishing API (https://developers.facebook.com/docs/threads/posts): a media container
// (POST /{user-id}/threads, TEXT, IMAGE or VIDEO, the image or video fetched by Threads from a public URL of ours),
// its status checked until FINISHED, the attempts apart on the workflow's timer (https://developers.facebook.com/docs/threads/troubleshooting#publishing-does-not-return-a-media-id),
// then POST /{user-id}/threads_publish. Each container is noted in the connection's session before it is published
// (threads-container-ledger.ts), so a retry, and the reconciliation after an attempt whose answer never came, ask
// Threads what became of it instead of posting again; the post is then found among the account's threads
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
// Threads asks for a wait before a container is published (about 30 seconds on average for media), and a video may
// take minutes: a container still IN_PROGRESS stops the attempt (MediaStillProcessing) and the workflow's timer
// brings the next one, which checks the same container. Half an hour in progress fails the post.
const processingLimitMs = 30 * 60 * 1000;
// https://developers.facebook.com/docs/threads/posts#video-specifications: up to 1 GB and 5 minutes, aspect ratios
// from 0.01:1 to 10:1, at most 1920 pixels wide.
const videoRules = { types: ['video/mp4' as const], maxBytes: 1_000_000_000, maxDurationMs: 300_000, aspectRatio: { min: 0.01, max: 10 } };
const permalinkMaxChars = 2_048;
// Graph API's "object does not exist" (code 100, subcode 33): a container Threads no longer knows.
const unknownObject = { code: 100, subcode: 33 };
// "Media not found" on publish (code 24, subcode 4279009), which Threads answers for a container it has not finished
// propagating: not in its documentation, but met in practice and gone on a retry.
const notPropagated = { code: 24, subcode: 4279009 };

type Account = { userId: string; token: string };
type ContainerStatus = 'FINISHED' | 'IN_PROGRESS' | 'PUBLISHED' | 'ERROR' | 'EXPIRED' | 'GONE';

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

function matches(answer: Answer, { code, subcode }: { code: number; subcode: number }): boolean {
  const error = graphErrorOf(answer.body);
  return error?.code === code && error.subcode === subcode;
}

/** The connector for Threads, at the Threads Graph API of `options.apiUrl` (Meta's by default). */
export function createThreadsConnector(options: ThreadsConnectorOptions): ThreadsConnector {
  const graph = createThreadsGraph(options);

  async function statusOf({ token }: Account, container: string): Promise<{ status: ContainerStatus; errorMessage: string }> {
    const answer = await graph.get(`/v1.0/${encodeURIComponent(container)}`, { fields: 'status,error_message', access_token: token });
    if (answer.status === 400 && matches(answer, unknownObject)) return { status: 'GONE', errorMessage: '' };
    if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [token]);
    const status = graph.textField(answer, 'status', 'the container status') as ContainerStatus;
    const errorMessage = typeof answer.body.error_message === 'string' ? answer.body.error_message : '';
    return { status, errorMessage };
  }

  /**
   * Whether Threads has processed the container, by the status it just gave: FINISHED, or PUBLISHED should an
   * earlier attempt have published it; while it is IN_PROGRESS the attempt stops (MediaStillProcessing) and the
   * next one asks again.
   */
  async function processed(
    { status, errorMessage }: { status: ContainerStatus; errorMessage: string },
    entry: LedgerEntry,
    post: SocialPost,
    ledger: ContainerLedger,
  ): Promise<'FINISHED' | 'PUBLISHED'> {
    if (status === 'FINISHED' || status === 'PUBLISHED') return status;
    if (status === 'IN_PROGRESS') {
      if (Date.now() - entry.madeAt > processingLimitMs) {
        throw new SocialRejectedError(`Threads was still processing the post ${processingLimitMs / 60_000} minutes after it was sent`);
      }
      throw new MediaStillProcessing(`Threads is processing the ${post.video ? 'video' : 'post'}.`, nextCheckAfterMs(entry.madeAt));
    }
    await ledger.forget(post.idempotencyKey);
    if (status === 'ERROR') {
      const hint =
        post.image || post.video
          ? `; Threads fetches the ${post.video ? 'video' : 'image'} from our PUBLIC_URL, which must be reachable from the internet`
          : '';
      throw new SocialRejectedError(`Threads could not process the post (${errorMessage || 'no reason given'})${hint}`);
    }
    throw new SocialUnavailableError(`Threads let the post's container lapse (${status}); the next attempt makes a new one`);
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
   * The thread a PUBLISHED container became: the account's first thread since, with the text sent; a reply is among
   * the account's replies instead (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/replies-and-conversations).
   */
  async function threadOf({ userId, token }: Account, entry: LedgerEntry): Promise<PublishedSocialPost> {
    const since = String(Math.floor(entry.madeAt / 1000) - 60);
    const answer = await graph.get(`/v1.0/${userId}/${entry.reply ? 'replies' : 'threads'}`, {
      fields: 'id,text,timestamp,permalink',
      since,
      access_token: token,
    });
    if (answer.status !== 200) throw graph.failureOf(answer, 'the list of threads', [token]);
    const threads = Array.isArray(answer.body.data) ? (answer.body.data as Record<string, unknown>[]) : [];
    const found = threads
      .filter((thread) => typeof thread.id === 'string' && textHashOf(typeof thread.text === 'string' ? thread.text : '') === entry.textHash)
      .sort((a, b) => Date.parse(String(a.timestamp)) - Date.parse(String(b.timestamp)))[0];
    if (!found) throw new SocialUnavailableError("Threads says the post was published, but it is not among the account's threads yet");
    return { externalPostId: found.id as string, url: httpsLinkOf(found.permalink, permalinkMaxChars) };
  }

  /** The post's page: asked for once it is published, so a failure here leaves it without a link, not unpublished. */
  async function permalinkOf({ token }: Account, id: string): Promise<string | undefined> {
    const answer = await graph.get(`/v1.0/${encodeURIComponent(id)}`, { fields: 'permalink', access_token: token }).catch(() => undefined);
    return answer?.status === 200 ? httpsLinkOf(answer.body.permalink, permalinkMaxChars) : undefined;
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

      const ledger = containerLedger(sessions);
      let entry = await ledger.find(post.idempotencyKey);
      // The container an earlier attempt made, if Threads still has it usable; else a new one.
      let checked = entry ? await statusOf(account, entry.container) : undefined;
      if (entry && checked?.status === 'PUBLISHED') return threadOf(account, entry);
      if (checked && checked.status !== 'FINISHED' && checked.status !== 'IN_PROGRESS') [entry, checked] = [undefined, undefined];
      if (!entry) {
        entry = {
          container: await createContainer(account, post, text),
          madeAt: Date.now(),
          textHash: textHashOf(text),
          ...(post.replyTo ? { reply: true } : {}),
        };
        await ledger.note(post.idempotencyKey, entry);
      }
      if ((await processed(checked ?? (await statusOf(account, entry.container)), entry, post, ledger)) === 'PUBLISHED') return threadOf(account, entry);

      const answer = await graph.post(
        `/v1.0/${account.userId}/threads_publish`,
        { creation_id: entry.container, access_token: account.token },
        { creates: true },
      );
      if (answer.status === 400 && matches(answer, notPropagated)) throw new SocialUnavailableError('Threads has not finished taking the post in yet');
      if (answer.status !== 200) throw graph.failureOf(answer, 'the post', [account.token]);
      const id = graph.textField(answer, 'id', 'the post');
      // The entry stays (a week): should recording this outcome fail, the retry finds the thread through it.
      return { externalPostId: id, url: await permalinkOf(account, id) };
    },

    async findPublished(credentials, idempotencyKey, sessions) {
      if (!sessions) return null;
      const account = accountOf(credentials);
      const entry = await containerLedger(sessions).find(idempotencyKey);
      // No container was made under this key: nothing can have been published.
      if (!entry) return notSent;
      const { status } = await statusOf(account, entry.container);
      return status === 'PUBLISHED' ? threadOf(account, entry) : null;
    },
  };
}
