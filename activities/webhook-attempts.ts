import { log } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../src/adapters/database/entities/workspace.ts';
import type { WorkspaceEvent } from '../src/adapters/database/entities/workspace-event.ts';
import { mapConcurrently } from '../src/common/async/map-concurrently.ts';
import { messageOf } from '../src/common/errors/caught.ts';
import type { PostEventDetails } from '../src/domain/events/post-event.ts';
import { outcomeOf, slowAnswerMs, type DeliveryTarget, type TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { loggedDeliveryAnswers, recordDeliveryRound } from '../src/domain/webhooks/record-delivery-round.ts';
import { hasFeature, stoppedByPlan } from '../src/domain/workspaces/plans.ts';
import { webhookDeliveryAttempts } from '../src/adapters/metrics/worker-metrics.ts';
import { sendWebhook } from '../src/adapters/webhook-sender/send-webhook.ts';
import { webhookBody } from '../src/adapters/webhook-sender/webhook-body.ts';
import type { Deps } from '../src/domain/deps.ts';

// One attempt of one event to several webhooks at once: the HTTP requests run concurrently, and the whole round is
// logged in one transaction (src/domain/webhooks/record-delivery-round.ts). Used by the event's fan-out (all its
// webhooks, then the ones still failing) and by the single-webhook attempt of a redelivery.

// Receivers fetch the image after the fact; give them a week.
const imageLinkTtlSeconds = 7 * 24 * 60 * 60;
// Requests in flight at once for one event: enough that twenty slow receivers cost one timeout, not twenty, and few
// enough that a workspace with hundreds of webhooks does not open hundreds of sockets from one activity.
const concurrentRequests = 32;

/**
 * Attempt number `attempt` of `event` to each target, in a workspace on `plan`: sign, POST, log, and act on the
 * answer (a 410 deactivates). A target whose attempt is already in the log (this activity ran before and was
 * retried) is not sent again; its logged answer stands. `sent` is called after each request, for heartbeats.
 */
export async function attemptDeliveries(
  deps: Deps,
  em: EntityManager,
  { event, plan }: { event: WorkspaceEvent; plan: Plan },
  targets: readonly DeliveryTarget[],
  attempt: number,
  sent: () => void = () => {},
): Promise<TargetAttempt[]> {
  if (targets.length === 0) return [];
  if (!hasFeature(plan, 'webhooks')) {
    const error = stoppedByPlan(plan, 'webhooks');
    const attemptedAt = new Date();
    await recordDeliveryRound(
      em,
      event,
      attempt,
      targets.map((target) => ({ target, attemptedAt, response: { statusCode: null, durationMs: 0, error } })),
    );
    webhookDeliveryAttempts.inc({ outcome: 'not-on-plan' }, targets.length);
    return targets.map(({ webhook, deliveryId }) => ({ webhookId: webhook.id, deliveryId, outcome: 'not-on-plan', statusCode: null, error }));
  }

  const logged = await loggedDeliveryAnswers(em, targets, attempt);
  const toSend = targets.filter((target) => !logged.has(target.deliveryId));
  const imageKey = (event.details as PostEventDetails).imageKey;
  const body = webhookBody(event, imageKey && toSend.length > 0 ? await deps.storage.signedUrl(imageKey, imageLinkTtlSeconds) : null);
  const timestamp = Math.floor(Date.now() / 1000);

  // A receiver still silent after slowAnswerMs is marked slow at once, not at the round's end: the events published
  // meanwhile then already leave it out of their first round. The round's log then records how each answered.
  const marks: Array<Promise<void>> = [];
  const answers = await mapConcurrently(toSend, concurrentRequests, async (target) => {
    const attemptedAt = new Date();
    const marking = target.webhook.answersSlowly ? undefined : setTimeout(() => marks.push(markAnsweringSlowly(deps, target.webhook.id)), slowAnswerMs);
    const response = await sendWebhook(deps, target.webhook, { deliveryId: target.deliveryId, timestamp, body });
    clearTimeout(marking);
    sent();
    return { target, attemptedAt, response };
  });
  await Promise.all(marks);
  await recordDeliveryRound(em, event, attempt, answers);

  const fresh = new Map(
    answers.map(({ target, response }) => [target.deliveryId, { statusCode: response.statusCode, error: response.error, outcome: outcomeOf(response) }]),
  );
  // Counted once logged: a retried round skips what the log holds, so no attempt is counted twice.
  for (const { outcome } of fresh.values()) webhookDeliveryAttempts.inc({ outcome });
  for (const { target, response } of answers) {
    if (response.statusCode === 410) log.warn('webhook answered 410 Gone and was deactivated', { webhookId: target.webhook.id });
  }
  return targets.map(({ webhook, deliveryId }) => ({ webhookId: webhook.id, deliveryId, ...(fresh.get(deliveryId) ?? logged.get(deliveryId)!) }));
}

/**
 * Marks a webhook slow while its request is still under way. Only a hint for routing the next events' first rounds:
 * failing to write it must not fail the round, whose requests are already out (a retried round would send them again).
 */
async function markAnsweringSlowly(deps: Deps, webhookId: string): Promise<void> {
  try {
    await deps.orm.em.fork().execute('update webhooks set answers_slowly = true where id = ?', [webhookId], 'run');
  } catch (error) {
    log.warn('could not mark a webhook as answering slowly', { webhookId, error: messageOf(error) });
  }
}
