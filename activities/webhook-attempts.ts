import { log } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../src/adapters/database/entities/workspace.ts';
import type { PostEventDetails, WorkspaceEvent } from '../src/adapters/database/entities/workspace-event.ts';
import { mapConcurrently } from '../src/common/async/map-concurrently.ts';
import { messageOf } from '../src/common/errors/caught.ts';
import { outcomeOf, slowAnswerMs, type DeliveryTarget, type TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { loggedDeliveryAnswers, recordDeliveryRound } from '../src/domain/webhooks/record-delivery-round.ts';
import { hasFeature, stoppedByPlan } from '../src/domain/workspaces/plans.ts';
import { webhookDeliveryAttempts } from '../src/adapters/metrics/worker-metrics.ts';
import { sendWebhook } from '../src/adapters/webhook-sender/send-webhook.ts';
import type { WebhookPostResult } from '../src/adapters/webhook-sender/post-webhook.ts';
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

/** A delivery whose request was still under way when its round handed over (see attemptDeliveriesWithin). */
export type HandedOver = { webhookId: string; outcome: 'deferred'; inFlightUntil: number };
/** A delivery whose request had not started when its round handed over: the next activity sends it. */
export type Unsent = { webhookId: string; outcome: 'deferred' };

/**
 * Attempt number `attempt` of `event` to each target, in a workspace on `plan`: sign, POST, log, and act on the
 * answer (a 410 deactivates). A target whose attempt is already in the log (this activity ran before and was
 * retried) is not sent again; its logged answer stands. `sent` is called after each request, for heartbeats.
 */
export async function attemptDeliveries(
  deps: Deps,
  em: EntityManager,
  found: { event: WorkspaceEvent; plan: Plan },
  targets: readonly DeliveryTarget[],
  attempt: number,
  sent: () => void = () => {},
): Promise<TargetAttempt[]> {
  return (await attempting(deps, em, found, targets, attempt, sent, undefined)) as TargetAttempt[];
}

/**
 * attemptDeliveries that returns within about `handOverAfterMs` (an event's first round as a local activity, which
 * holds a workflow task slot while it runs): the requests still unanswered then stay under way, not sent again and
 * not cut short (the receiver may already have the message), and come back as HandedOver. Each one's answer goes
 * to the log when it comes, where the workflow's next activity waits for it, until `inFlightUntil`: past the request
 * timeout, so a request still missing from the log then was lost with this worker, and is sent again. The requests
 * that had not started by then are handed over unsent.
 */
export async function attemptDeliveriesWithin(
  deps: Deps,
  em: EntityManager,
  found: { event: WorkspaceEvent; plan: Plan },
  targets: readonly DeliveryTarget[],
  attempt: number,
  handOverAfterMs: number,
): Promise<Array<TargetAttempt | HandedOver | Unsent>> {
  return attempting(deps, em, found, targets, attempt, () => {}, handOverAfterMs);
}

/** One request's answer, as the round logs it and acts on it. */
type Sent = { target: DeliveryTarget; attemptedAt: Date; response: WebhookPostResult };

// Time past a handed-over request's timeout for its answer to reach the log before it is presumed lost.
const handOverLoggingMs = 10_000;

async function attempting(
  deps: Deps,
  em: EntityManager,
  { event, plan }: { event: WorkspaceEvent; plan: Plan },
  targets: readonly DeliveryTarget[],
  attempt: number,
  sent: () => void,
  handOverAfterMs: number | undefined,
): Promise<Array<TargetAttempt | HandedOver | Unsent>> {
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
  const inFlightUntil = Date.now() + deps.webhooks.timeoutMs + handOverLoggingMs;

  // A receiver still silent after slowAnswerMs is marked slow at once, not at the round's end: the events published
  // meanwhile then already leave it out of their first round. The round's log then records how each answered.
  const marks: Array<Promise<void>> = [];
  let handedOver = false;
  const answering = new Map<DeliveryTarget, Promise<Sent>>();
  const answered = new Map<DeliveryTarget, Sent>();
  const sending = mapConcurrently(toSend, concurrentRequests, async (target) => {
    if (handedOver) return;
    const answer = (async () => {
      const attemptedAt = new Date();
      const marking = target.webhook.answersSlowly ? undefined : setTimeout(() => marks.push(markAnsweringSlowly(deps, target.webhook.id)), slowAnswerMs);
      const response = await sendWebhook(deps, target.webhook, { deliveryId: target.deliveryId, timestamp, body });
      clearTimeout(marking);
      sent();
      return { target, attemptedAt, response };
    })();
    answering.set(target, answer);
    answered.set(target, await answer);
  });
  if (handOverAfterMs === undefined) await sending;
  else {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([sending, new Promise<void>((resolve) => (timer = setTimeout(resolve, handOverAfterMs)))]);
    clearTimeout(timer);
    handedOver = true;
    // What fails after the hand-over is a request the next activity sends again once it gives up on the log.
    sending.catch(() => {});
  }
  // What answered and what is under way, told apart at the hand-over: a late answer goes to the log on its own.
  const answers = toSend.flatMap((target) => answered.get(target) ?? []);
  const underWay = [...answering].filter(([target]) => !answered.has(target));
  for (const [, answer] of underWay)
    void answer.then(
      (late) => recordLateAnswer(deps, event, attempt, late),
      () => {},
    );
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
  const inFlight = new Set(underWay.map(([target]) => target.deliveryId));
  return targets.map(({ webhook, deliveryId }): TargetAttempt | HandedOver | Unsent => {
    const known = fresh.get(deliveryId) ?? logged.get(deliveryId);
    if (known) return { webhookId: webhook.id, deliveryId, ...known };
    return inFlight.has(deliveryId) ? { webhookId: webhook.id, outcome: 'deferred', inFlightUntil } : { webhookId: webhook.id, outcome: 'deferred' };
  });
}

/**
 * Logs the answer of a request its round handed over. Failing to must not go unnoticed, but cannot fail anything:
 * the activity waiting for it sends the request again once it gives up on the log.
 */
async function recordLateAnswer(deps: Deps, event: WorkspaceEvent, attempt: number, answer: Sent): Promise<void> {
  try {
    await recordDeliveryRound(deps.orm.em.fork(), event, attempt, [answer]);
    webhookDeliveryAttempts.inc({ outcome: outcomeOf(answer.response) });
    if (answer.response.statusCode === 410) log.warn('webhook answered 410 Gone and was deactivated', { webhookId: answer.target.webhook.id });
  } catch (error) {
    log.warn('could not log the answer of a handed-over webhook request', { webhookId: answer.target.webhook.id, error: messageOf(error) });
  }
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
