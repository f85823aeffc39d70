import { Context, log } from '@temporalio/activity';
import { beginTargetPublication, needsReauth, type TargetPublication } from '../src/domain/publishing/begin-target-publication.ts';
import { altTextOf, postImageOf, socialDraftOf } from '../src/domain/publishing/social-draft.ts';
import { socialVideoOf, targetMediaOf } from '../src/domain/publishing/post-media.ts';
import { handOverEvent } from '../src/domain/events/hand-over-event.ts';
import { freshCredentials } from '../src/domain/social-connections/fresh-credentials.ts';
import { recordTargetPublished } from '../src/domain/publishing/record-target-published.ts';
import { attemptOutcomeOf, foundDetail, publishedDetailOf, vanishedDetail, unknownNotRetriedDetail } from '../src/domain/publishing/attempt-outcome.ts';
import { recordedAttempts, recordPublishAttempt, type PublishAttempt } from '../src/domain/publishing/record-publish-attempt.ts';
import { WorkRefused } from '../src/domain/work-refused.ts';
import { countOutcome } from '../src/adapters/metrics/remote-call-outcome.ts';
import { socialPublishAttempts } from '../src/adapters/metrics/worker-metrics.ts';
import { connectionSessions } from '../src/adapters/social/connection-sessions.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';
import { messageOf } from '../src/common/errors/caught.ts';
import { heartbeatingOnAClock } from './heartbeat-on-a-clock.ts';
import { nextAttemptAt } from './next-attempt-at.ts';
import { socialPublish } from '../workflows/contracts/activity-options.ts';
import {
  MediaStillProcessing,
  notSent,
  SocialOutcomeUnknownError,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialPlatform,
  type SocialPost,
} from '../src/adapters/social/social-connector.ts';
import { imageLinkKindOf } from '../src/adapters/social/platform-registry.ts';
import { platformCopyLink } from '../src/domain/publishing/platform-copy-link.ts';
import { ensureQuotaForPost, spendPlatformQuota } from '../src/domain/publishing/platform-quota.ts';
import type { Deps } from '../src/domain/deps.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTargetPart } from '../src/adapters/database/entities/publish-target-part.ts';
import { postPartsOf } from '../src/adapters/social/thread-parts.ts';

export type PublishToTargetInput = {
  targetId: string;
  publishedAt: string;
  /** Planned for later: publish only if the post is still `scheduled` (absent from activities scheduled before it existed). */
  onlyIfStillScheduled?: boolean;
  /**
   * The attempts earlier runs of this activity made for the target (they stopped while the platform processed its
   * media): this run's attempts are numbered after them in the target's history. Absent: none.
   */
  attemptsBefore?: number;
};

/**
 * The platform is processing the post's media (MediaStillProcessing): the workflow waits `waitMs` on a durable timer
 * and runs the activity again, which goes on from there; `attempts` is how many this run made.
 */
export type MediaWait = { waitMs: number; attempts: number };

/**
 * Publishes the post's title and image (or the target's overrides) to one connection: one post, or with `thread`
 * the parts of a thread (thread-parts.ts), each replying to the one before. Every attempt sends the same
 * idempotency key for a part (the target's, and `${key}.${part}` after the first), so an attempt retried after the
 * platform already accepted it finds that post instead of making a second one. Each part is recorded as soon as the
 * platform has it, and each attempt at a part records how it ended (publish_target_attempts): a retry goes on from
 * the first part not recorded, and one that follows an attempt whose outcome is unknown (the part was sent, no
 * answer came) first looks the part up on the platform.
 */
export function publishToTarget(deps: Deps, input: PublishToTargetInput): Promise<MediaWait | undefined> {
  // A publish is several platform requests in a row (session, upload, post), each allowed as long as the heartbeat
  // timeout, and an upload streams for as long as its bytes take.
  return heartbeatingOnAClock(() => attemptToPublish(deps, input));
}

/** One attempt at one part: `attemptedAt` is when that part began. */
type Attempt = Pick<PublishAttempt, 'targetId' | 'attempt' | 'attemptedAt'> & { part: number };
/** Where the attempt got to: the connector, once known, and the part under way (the one a failure is recorded for). */
type Progress = { connector?: SocialConnector; current: Attempt };

async function attemptToPublish(deps: Deps, input: PublishToTargetInput): Promise<MediaWait | undefined> {
  const { attempt: retry } = Context.current().info;
  const number = (input.attemptsBefore ?? 0) + retry;
  const progress: Progress = { current: { targetId: input.targetId, attempt: number, attemptedAt: new Date(), part: 1 } };
  try {
    await publish(deps, input, progress);
    return undefined;
  } catch (error) {
    const { connector, current } = progress;
    if (error instanceof MediaStillProcessing) {
      const nextAttemptAt = new Date(Date.now() + error.checkAfterMs);
      await recordPublishAttempt(deps.orm.em.fork(), { ...current, outcome: 'processing', detail: error.detail, nextAttemptAt });
      return { waitMs: error.checkAfterMs, attempts: retry };
    }
    // Retried only when the next attempt can look the part up or send it again harmlessly (see mayResend).
    const failure =
      error instanceof SocialOutcomeUnknownError && connector && !connector.findPublished && !mayResend(connector, current.attemptedAt) ? notRetried() : error;
    const failedAt = new Date();
    await recordOrLog(deps, { ...current, ...attemptOutcomeOf(failure), nextAttemptAt: nextAttemptAt(failure, retry, socialPublish.retry, failedAt) });
    throw failure;
  }
}

/**
 * Whether sending the post again, after an attempt begun at `since` whose outcome is unknown, cannot post twice: the
 * platform says so, within the time it remembers our key. Otherwise the post is not sent again: a post that may be
 * missing is one click for the customer to publish again, a duplicate is public and ours to answer for.
 */
function mayResend(connector: SocialConnector, since: Date): boolean {
  const { guaranteed, withinMs } = connector.declaration.retriesNeverDuplicate;
  return guaranteed && (withinMs === undefined || Date.now() - since.getTime() < withinMs);
}

function notRetried(): WorkRefused {
  return new WorkRefused(failureTypes.socialOutcomeUnknown, unknownNotRetriedDetail);
}

/** The idempotency key of a part: the target's for the first (as for a single post), then one of its own per part. */
function partKeyOf(targetKey: string, part: number): string {
  return part === 1 ? targetKey : `${targetKey}.${part}`;
}

async function publish(deps: Deps, input: PublishToTargetInput, progress: Progress): Promise<void> {
  const em = deps.orm.em.fork();
  const publication = await beginTargetPublication(em, input.targetId, { onlyIfStillScheduled: input.onlyIfStillScheduled ?? false });
  if (!publication) return;
  const { target, connection, post } = publication;
  const connector = deps.social[connection.platform];
  progress.connector = connector;
  // A single post's outcome is the target's own: only a thread's parts are kept, one row each.
  const published = target.thread ? await publishedParts(em, target.id) : [];
  // Only the first part this attempt takes on can have been sent before: a later one was never reached.
  const firstPart = published.length + 1;
  progress.current = { ...progress.current, part: firstPart };

  const { credentials, refresh } = await freshCredentials(deps, connection);
  if (refresh?.state === 'needs_reauth') {
    // The platform refused to refresh the connection's tokens just now: its event goes out, the target fails.
    if (refresh.eventId) await handOverEvent(deps, refresh.eventId);
    throw needsReauth((await em.refresh(connection)) ?? connection);
  }
  const sessions = connectionSessions(deps.orm, deps.secrets, connection.id);
  // The image or video goes with the first part: an attempt that resumes a thread past it does not read it.
  const media = firstPart === 1 ? await targetMediaOf(deps, em, target, connector.declaration) : null;
  if (media?.media === 'refused') throw new WorkRefused(failureTypes.noVideo, media.reason);
  const override = { text: target.textOverride, altText: target.altTextOverride };
  const image = media?.media === 'image' ? await postImageOf(deps, post) : null;
  const draft = socialDraftOf(post, image, override);
  const video =
    media?.media === 'video' ? socialVideoOf(deps, media.video, altTextOf(post, override), linkOf(deps, connection.platform, media.video.key)) : undefined;
  const { parts } = postPartsOf(draft.text, connector.declaration, target.thread);
  if (firstPart > parts.length) return recordThreadPublished(em, publication, published, input);

  for (let part = firstPart; part <= parts.length; part += 1) {
    const attempt: Attempt = { ...progress.current, part, attemptedAt: part === firstPart ? progress.current.attemptedAt : new Date() };
    progress.current = attempt;
    const idempotencyKey = partKeyOf(target.idempotencyKey, part);
    const last = part === parts.length;
    const unansweredSince = part === firstPart && attempt.attempt > 1 ? await earliestUnknownAttempt(deps, attempt) : undefined;
    if (unansweredSince) {
      const found = await connector.findPublished?.(credentials, idempotencyKey, sessions);
      if (found && found !== notSent) {
        published.push(
          await recordPart(em, publication, found, input, { ...attempt, detail: foundDetail, answers: found.answers }, last ? published : undefined),
        );
        continue;
      }
      if (found !== notSent && !mayResend(connector, unansweredSince)) throw notRetried();
    }
    const { quota } = connector.declaration;
    // Counted across every replica (platform-quota.ts): a post that would pass the day's quota waits for the next day
    // before anything is sent. Only the target's first attempt asks: a later one may be resuming an upload that has
    // spent its units already (or checking on its processing), and spendQuota refuses whatever would not fit anyway.
    if (quota && attempt.attempt === 1) await ensureQuotaForPost(deps.orm.em.fork(), connection.platform, quota);
    const [root] = published;
    const parent = published.at(-1);
    const socialPost: SocialPost = {
      // The image or video goes with the first part.
      ...(part === 1 ? { ...draft, video } : { text: draft.text }),
      text: parts[part - 1]!,
      language: connection.postLanguage ?? undefined,
      idempotencyKey,
      // A second apart, so the parts keep their order where a platform dates posts by this (Nostr).
      datedAt: new Date(Date.parse(input.publishedAt) + (part - 1) * 1000),
      onProgress: () => Context.current().heartbeat(),
      ...(quota ? { spendQuota: (units: number) => spendPlatformQuota(deps.orm.em.fork(), connection.platform, quota, units) } : {}),
      ...(part === 1 && draft.image && post.imageKey
        ? {
            imageUrl: linkOf(deps, connection.platform, post.imageKey),
            copyLink: platformCopyLink(deps, { workspaceId: post.workspaceId, postId: post.id, attemptId: `${target.id}-${attempt.attempt}` }),
          }
        : {}),
      ...(root && parent ? { replyTo: { root, parent } } : {}),
    };
    const answer = await countOutcome(connector.publish(credentials, socialPost, sessions), (outcome) =>
      socialPublishAttempts.inc({ platform: connection.platform, outcome }),
    );
    published.push(
      await recordPart(
        em,
        publication,
        answer,
        input,
        { ...attempt, detail: publishedDetailOf(answer.visibility), answers: answer.answers },
        last ? published : undefined,
      ),
    );
  }
}

/** The parts of the target the platform has, in order. */
async function publishedParts(em: EntityManager, targetId: string): Promise<PublishedSocialPost[]> {
  return (await em.find(PublishTargetPart, { targetId }, { orderBy: { part: 'asc' } })).map(postOf);
}

function postOf(part: PublishTargetPart): PublishedSocialPost {
  return { externalPostId: part.externalPostId, url: part.externalUrl ?? undefined, replyRef: part.replyRef ?? undefined };
}

/**
 * Records one part the platform has (kept as a row on a thread only), and the attempt that got it, in one transaction; with the last part (`before`:
 * the parts before it), the target is `Published` too, with the first part's link.
 */
async function recordPart(
  em: EntityManager,
  publication: TargetPublication,
  published: PublishedSocialPost,
  input: PublishToTargetInput,
  attempt: Attempt & Pick<PublishAttempt, 'detail' | 'answers'>,
  before: PublishedSocialPost[] | undefined,
): Promise<PublishedSocialPost> {
  const part = { externalPostId: published.externalPostId, url: published.url, replyRef: published.replyRef };
  return em.transactional(async (tx) => {
    if (publication.target.thread) {
      tx.create(PublishTargetPart, {
        targetId: attempt.targetId,
        part: attempt.part,
        externalPostId: part.externalPostId,
        externalUrl: part.url ?? null,
        replyRef: part.replyRef ?? null,
        publishedAt: new Date(),
      });
    }
    await recordPublishAttempt(tx, { ...attempt, outcome: 'published', nextAttemptAt: null });
    if (before) await recordTargetPublished(tx, publication, { ...(before[0] ?? part), publishedAt: input.publishedAt });
    return part;
  });
}

/** A target whose parts were all recorded before this attempt (its text got shorter meanwhile): published as they are. */
async function recordThreadPublished(
  em: EntityManager,
  publication: TargetPublication,
  published: PublishedSocialPost[],
  input: PublishToTargetInput,
): Promise<void> {
  await em.transactional((tx) => recordTargetPublished(tx, publication, { ...published[0]!, publishedAt: input.publishedAt }));
}

/**
 * When the earliest attempt at this part that may have sent it without hearing how it went began: one recorded
 * `unknown` (the look-up that followed may itself have failed), or the one just before this, when it ended without
 * recording how (its worker stopped, or Temporal timed it out while it ran: an attempt that fails records its
 * failure, one that publishes the last part leaves no attempt after it), which is recorded now as `unknown` at this
 * part, the one it was at. Undefined when there is none.
 */
async function earliestUnknownAttempt(deps: Deps, { targetId, attempt, attemptedAt, part }: Attempt): Promise<Date | undefined> {
  const em = deps.orm.em.fork();
  const earlier = await recordedAttempts(em, targetId, attempt);
  const unknownSince = earlier.find((recorded) => recorded.part === part && recorded.outcome === 'unknown')?.attemptedAt;
  if (earlier.some((recorded) => recorded.attempt === attempt - 1 && recorded.outcome !== 'published')) return unknownSince;
  // Dated when its silence was noticed, now: when it began is not known.
  await recordPublishAttempt(em, { targetId, attempt: attempt - 1, part, attemptedAt, outcome: 'unknown', detail: vanishedDetail, nextAttemptAt: attemptedAt });
  return unknownSince ?? attemptedAt;
}

/**
 * The link to the stored image or video a platform that takes no upload is given (its platform module's
 * `imageLink`): a lasting one for a post kept with its link (Nostr), the same on every attempt; else a signed one
 * made when the connector needs it (Threads, as it posts), so its expiry runs from then.
 */
function linkOf(deps: Deps, platform: SocialPlatform, key: string): () => Promise<string> {
  if (imageLinkKindOf(platform) === 'lasting') return () => Promise.resolve(deps.imageLinks.linkTo(key));
  return () => deps.storage.signedUrl(key);
}

/** Records a failed attempt; failing to must not hide the failure itself, which Temporal acts on. */
async function recordOrLog(deps: Deps, attempt: PublishAttempt): Promise<void> {
  try {
    await recordPublishAttempt(deps.orm.em.fork(), attempt);
  } catch (error) {
    log.warn('could not record a publish attempt', { targetId: attempt.targetId, attempt: attempt.attempt, error: messageOf(error) });
  }
}
