import { Context, log } from '@temporalio/activity';
import { beginTargetPublication, needsReauth, type TargetPublication } from '../src/domain/publishing/begin-target-publication.ts';
import { postImageOf, socialDraftOf } from '../src/domain/publishing/social-draft.ts';
import { freshCredentials } from '../src/domain/social-connections/fresh-credentials.ts';
import { startEventDelivery } from './start-event-delivery.ts';
import { recordTargetPublished } from '../src/domain/publishing/record-target-published.ts';
import { attemptOutcomeOf, foundDetail, publishedDetail, vanishedDetail, unknownNotRetriedDetail } from '../src/domain/publishing/attempt-outcome.ts';
import { recordedAttempts, recordPublishAttempt, type PublishAttempt } from '../src/domain/publishing/record-publish-attempt.ts';
import { WorkRefused } from '../src/domain/work-refused.ts';
import { countOutcome } from '../src/adapters/metrics/remote-call-outcome.ts';
import { socialPublishAttempts } from '../src/adapters/metrics/worker-metrics.ts';
import { connectionSessions } from '../src/adapters/social/connection-sessions.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';
import { messageOf } from '../src/common/errors/caught.ts';
import { heartbeatingOnAClock } from './heartbeat-on-a-clock.ts';
import { nextAttemptAt } from './next-attempt-at.ts';
import { socialPublish } from '../workflows/activity-options.ts';
import { SocialOutcomeUnknownError, type PublishedSocialPost, type SocialConnector, type SocialPost } from '../src/adapters/social/social-connector.ts';
import type { Deps } from '../src/domain/deps.ts';

export type PublishToTargetInput = {
  targetId: string;
  publishedAt: string;
  /** Planned for later: publish only if the post is still `scheduled` (absent from activities scheduled before it existed). */
  onlyIfStillScheduled?: boolean;
};

/**
 * Publishes the post's title and image (or the target's overrides) to one connection. Every attempt sends the target's idempotency key, so an
 * attempt retried after the platform already accepted the post finds that post instead of making a second one.
 * Each attempt records how it ended (publish_target_attempts), and one that follows an attempt whose outcome is
 * unknown (the post was sent, no answer came) first looks the post up on the platform.
 */
export function publishToTarget(deps: Deps, input: PublishToTargetInput): Promise<void> {
  // A publish is several platform requests in a row (session, upload, post), each allowed as long as the heartbeat
  // timeout; only Mastodon's media processing reports progress.
  return heartbeatingOnAClock(() => attemptToPublish(deps, input));
}

type Attempt = Pick<PublishAttempt, 'targetId' | 'attempt' | 'attemptedAt'>;

async function attemptToPublish(deps: Deps, input: PublishToTargetInput): Promise<void> {
  const number = Context.current().info.attempt;
  const attempt: Attempt = { targetId: input.targetId, attempt: number, attemptedAt: new Date() };
  let connector: SocialConnector | undefined;
  try {
    await publish(deps, input, attempt, (found) => (connector = found));
  } catch (error) {
    // Retried only when the next attempt can look the post up or send it again harmlessly (see mayResend).
    const failure =
      error instanceof SocialOutcomeUnknownError && connector && !connector.findPublished && !mayResend(connector, attempt.attemptedAt) ? notRetried() : error;
    const failedAt = new Date();
    await recordOrLog(deps, { ...attempt, ...attemptOutcomeOf(failure), nextAttemptAt: nextAttemptAt(failure, number, socialPublish.retry, failedAt) });
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

async function publish(deps: Deps, input: PublishToTargetInput, attempt: Attempt, using: (connector: SocialConnector) => void): Promise<void> {
  const em = deps.orm.em.fork();
  const publication = await beginTargetPublication(em, input.targetId, { onlyIfStillScheduled: input.onlyIfStillScheduled ?? false });
  if (!publication) return;
  const { target, connection, post } = publication;
  const connector = deps.social[connection.platform];
  using(connector);

  const { credentials, refresh } = await freshCredentials(deps, connection);
  if (refresh?.state === 'needs_reauth') {
    // The platform refused to refresh the connection's tokens just now: its event goes out, the target fails.
    if (refresh.eventId) await startEventDelivery(deps, { eventId: refresh.eventId });
    throw needsReauth((await em.refresh(connection)) ?? connection);
  }
  const sessions = connectionSessions(deps.orm, deps.secrets, connection.id);
  const unansweredSince = attempt.attempt > 1 ? await earliestUnknownAttempt(deps, attempt) : undefined;
  if (unansweredSince) {
    const found = await connector.findPublished?.(credentials, target.idempotencyKey, sessions);
    if (found) return recordPublished(em, publication, found, input, { ...attempt, detail: foundDetail });
    if (!mayResend(connector, unansweredSince)) throw notRetried();
  }

  const draft = socialDraftOf(post, await postImageOf(deps, post), { text: target.textOverride, altText: target.altTextOverride });
  const socialPost: SocialPost = {
    ...draft,
    language: connection.postLanguage ?? undefined,
    idempotencyKey: target.idempotencyKey,
    datedAt: new Date(input.publishedAt),
    onProgress: () => Context.current().heartbeat(),
    // A link made when the connector needs it (Threads, as it posts), so its expiry runs from then.
    ...(draft.image && post.imageKey ? { imageUrl: imageUrlOf(deps, post.imageKey) } : {}),
  };
  const published = await countOutcome(connector.publish(credentials, socialPost, sessions), (outcome) =>
    socialPublishAttempts.inc({ platform: connection.platform, outcome }),
  );
  await recordPublished(em, publication, published, input, { ...attempt, detail: publishedDetail, answers: published.answers });
}

async function recordPublished(
  em: ReturnType<Deps['orm']['em']['fork']>,
  publication: TargetPublication,
  published: PublishedSocialPost,
  input: PublishToTargetInput,
  attempt: Attempt & Pick<PublishAttempt, 'detail' | 'answers'>,
): Promise<void> {
  await em.transactional(async (tx) => {
    await recordTargetPublished(tx, publication, { ...published, publishedAt: input.publishedAt });
    await recordPublishAttempt(tx, { ...attempt, outcome: 'published', nextAttemptAt: null });
  });
}

/**
 * When the earliest attempt that may have sent the post without hearing how it went began: one recorded `unknown`
 * (the look-up that followed may itself have failed), or the one just before this that recorded nothing (its worker
 * stopped, or Temporal timed it out while it ran), which is recorded now as `unknown`. Undefined when there is none.
 */
async function earliestUnknownAttempt(deps: Deps, { targetId, attempt, attemptedAt }: Attempt): Promise<Date | undefined> {
  const em = deps.orm.em.fork();
  const earlier = await recordedAttempts(em, targetId, attempt);
  if (earlier.some((recorded) => recorded.attempt === attempt - 1)) return earlier.find((recorded) => recorded.outcome === 'unknown')?.attemptedAt;
  // Dated when its silence was noticed, now: when it began is not known.
  await recordPublishAttempt(em, { targetId, attempt: attempt - 1, attemptedAt, outcome: 'unknown', detail: vanishedDetail, nextAttemptAt: attemptedAt });
  return earlier.find((recorded) => recorded.outcome === 'unknown')?.attemptedAt ?? attemptedAt;
}

/** A signed, expiring link to the stored image, for a platform that fetches the image itself. */
function imageUrlOf(deps: Deps, imageKey: string): () => Promise<string> {
  return () => deps.storage.signedUrl(imageKey);
}

/** Records a failed attempt; failing to must not hide the failure itself, which Temporal acts on. */
async function recordOrLog(deps: Deps, attempt: PublishAttempt): Promise<void> {
  try {
    await recordPublishAttempt(deps.orm.em.fork(), attempt);
  } catch (error) {
    log.warn('could not record a publish attempt', { targetId: attempt.targetId, attempt: attempt.attempt, error: messageOf(error) });
  }
}
