import { httpsLinkOf } from '../platform-http.ts';
import { nextCheckAfterMs } from '../media-ledger.ts';
import {
  MediaStillProcessing,
  SocialRejectedError,
  SocialUnavailableError,
  notSent,
  type NotSent,
  type PublishedSocialPost,
  type SocialPost,
} from '../social-connector.ts';
import { textHashOf, type ContainerLedger, type LedgerEntry } from './container-ledger.ts';
import type { MetaGraph } from './meta-graph.ts';

// How a post is published on Meta's container platforms (Threads, Instagram): a media container made from the post
// (the platform fetches its image or video from a link of ours), its status checked until FINISHED, the checks apart
// on the workflow's timer, then its publication. Each container is noted (container-ledger.ts) before it is
// published, so a retry, and the reconciliation after an attempt whose answer never came, ask the platform what
// became of it instead of posting again.

export type ContainerStatus = 'FINISHED' | 'IN_PROGRESS' | 'PUBLISHED' | 'ERROR' | 'EXPIRED' | 'GONE';
/** A container's status, `GONE` where the platform no longer knows it, and the platform's reason for an ERROR. */
export type ContainerState = { status: ContainerStatus; errorMessage: string };

/** What a platform tells of one account's containers. */
export type ContainerPlatform = {
  name: string;
  stateOf(container: string): Promise<ContainerState>;
  /** The post a container the platform says is PUBLISHED became, its answer having been lost. */
  postOf(entry: LedgerEntry): Promise<PublishedSocialPost>;
};

/** How one post is published: what its ledger entry notes, its container made, and a FINISHED container published. */
export type ContainerSteps = {
  entry: Pick<LedgerEntry, 'textHash' | 'reply'>;
  /** Makes the post's container: its id. */
  create(): Promise<string>;
  publish(container: string): Promise<PublishedSocialPost>;
};

// A container still IN_PROGRESS stops the attempt (MediaStillProcessing) and the workflow's timer brings the next
// one, which checks the same container. Half an hour in progress fails the post.
const processingLimitMs = 30 * 60 * 1000;

/** Publishes the post through its container: the one an earlier attempt noted while the platform can still use it, else a new one. */
export async function publishThroughContainer(
  platform: ContainerPlatform,
  post: SocialPost,
  ledger: ContainerLedger,
  steps: ContainerSteps,
): Promise<PublishedSocialPost> {
  let entry = await ledger.find(post.idempotencyKey);
  let checked = entry ? await platform.stateOf(entry.container) : undefined;
  if (entry && checked?.status === 'PUBLISHED') return platform.postOf(entry);
  if (checked && checked.status !== 'FINISHED' && checked.status !== 'IN_PROGRESS') [entry, checked] = [undefined, undefined];
  if (!entry) {
    entry = { container: await steps.create(), madeAt: Date.now(), ...steps.entry };
    await ledger.note(post.idempotencyKey, entry);
  }
  const state = checked ?? (await platform.stateOf(entry.container));
  if ((await processed(platform.name, state, entry, post, ledger)) === 'PUBLISHED') return platform.postOf(entry);
  // The entry stays (a week): should recording this outcome fail, the retry finds the post through it.
  return steps.publish(entry.container);
}

/** The post an earlier attempt under the key published, null when its container was not published, `notSent` when it made none. */
export async function findPublishedThroughContainer(
  platform: ContainerPlatform,
  ledger: ContainerLedger,
  idempotencyKey: string,
): Promise<PublishedSocialPost | null | NotSent> {
  const entry = await ledger.find(idempotencyKey);
  if (!entry) return notSent;
  const { status } = await platform.stateOf(entry.container);
  return status === 'PUBLISHED' ? platform.postOf(entry) : null;
}

/**
 * Whether the platform has processed the container, by the status it just gave: FINISHED, or PUBLISHED should an
 * earlier attempt have published it; while it is IN_PROGRESS the attempt stops (MediaStillProcessing) and the next
 * one asks again.
 */
async function processed(
  name: string,
  { status, errorMessage }: ContainerState,
  entry: LedgerEntry,
  post: SocialPost,
  ledger: ContainerLedger,
): Promise<'FINISHED' | 'PUBLISHED'> {
  if (status === 'FINISHED' || status === 'PUBLISHED') return status;
  if (status === 'IN_PROGRESS') {
    if (Date.now() - entry.madeAt > processingLimitMs) {
      throw new SocialRejectedError(`${name} was still processing the post ${processingLimitMs / 60_000} minutes after it was sent`);
    }
    throw new MediaStillProcessing(`${name} is processing the ${post.video ? 'video' : 'post'}.`, nextCheckAfterMs(entry.madeAt));
  }
  await ledger.forget(post.idempotencyKey);
  if (status === 'ERROR') {
    const hint =
      post.image || post.video ? `; ${name} fetches the ${post.video ? 'video' : 'image'} from our PUBLIC_URL, which must be reachable from the internet` : '';
    throw new SocialRejectedError(`${name} could not process the post (${errorMessage || 'no reason given'})${hint}`);
  }
  throw new SocialUnavailableError(`${name} let the post's container lapse (${status}); the next attempt makes a new one`);
}

const permalinkMaxChars = 2_048;

/**
 * The post a published container became, among the account's posts listed at `path` since the container was made:
 * the first with the text sent (`textField` names the listed text: Threads' `text`, Instagram's `caption`).
 */
export async function postAmong(
  graph: MetaGraph,
  list: { name: string; path: string; textField: string; token: string },
  entry: LedgerEntry,
): Promise<PublishedSocialPost> {
  const since = String(Math.floor(entry.madeAt / 1000) - 60);
  const answer = await graph.get(list.path, { fields: `id,${list.textField},timestamp,permalink`, since, access_token: list.token });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the list of posts', [list.token]);
  const posts = Array.isArray(answer.body.data) ? (answer.body.data as Record<string, unknown>[]) : [];
  const textOf = (post: Record<string, unknown>) => {
    const text = post[list.textField];
    return typeof text === 'string' ? text : '';
  };
  const found = posts
    .filter((post) => typeof post.id === 'string' && textHashOf(textOf(post)) === entry.textHash)
    .sort((a, b) => Date.parse(String(a.timestamp)) - Date.parse(String(b.timestamp)))[0];
  if (!found) throw new SocialUnavailableError(`${list.name} says the post was published, but it is not among the account's posts yet`);
  return { externalPostId: found.id as string, url: httpsLinkOf(found.permalink, permalinkMaxChars) };
}

/** The post's page (`path` is the post's): asked for once it is published, so a failure here leaves it without a link, not unpublished. */
export async function permalinkOf(graph: MetaGraph, path: string, token: string): Promise<string | undefined> {
  const answer = await graph.get(path, { fields: 'permalink', access_token: token }).catch(() => undefined);
  return answer?.status === 200 ? httpsLinkOf(answer.body.permalink, permalinkMaxChars) : undefined;
}
