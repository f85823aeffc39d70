import { log } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../src/data/entities/webhook.ts';
import { WebhookDelivery } from '../src/data/entities/webhook-delivery.ts';
import { Workspace } from '../src/data/entities/workspace.ts';
import type { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import { newId } from '../src/data/new-id.ts';
import { mapConcurrently } from '../src/async/map-concurrently.ts';
import type { PostEventDetails } from '../src/domain/events/post-event.ts';
import { hasFeature, stoppedByPlan } from '../src/domain/workspaces/plans.ts';
import { webhookDeliveryAttempts } from '../src/metrics/worker-metrics.ts';
import { isSuccessStatus, unusableUrlReason, type WebhookPostResult } from '../src/webhooks/post-webhook.ts';
import { sendWebhook } from '../src/webhooks/send-webhook.ts';
import { webhookBody } from '../src/webhooks/webhook-body.ts';
import type { ActivityDeps } from './index.ts';

// One attempt of one event to several webhooks at once: the HTTP requests run concurrently, and the whole round is
// logged in one transaction. Used by the event's fan-out (all its webhooks, then the ones still failing) and by the
// single-webhook attempt (deliveries started before the fan-out, and redeliveries).

export type DeliveryOutcome =
  /** A 2xx answer. */
  | 'delivered'
  /** Anything else that may work later: tried again on the retry ladder. */
  | 'failed'
  /** A 410 Gone: the webhook is now inactive. */
  | 'gone'
  /** The stored URL can never work (not https, not a URL): logged once, never retried. */
  | 'unusable'
  /** The workspace is no longer on a plan with webhooks: logged, never retried. */
  | 'not-on-plan';

export type DeliveryTarget = { webhook: Webhook; deliveryId: string };
export type TargetAttempt = { webhookId: string; deliveryId: string; outcome: DeliveryOutcome; statusCode: number | null; error: string | null };

// Receivers fetch the image after the fact; give them a week.
const imageLinkTtlSeconds = 7 * 24 * 60 * 60;
// Requests in flight at once for one event: enough that twenty slow receivers cost one timeout, not twenty, and few
// enough that a workspace with hundreds of webhooks does not open hundreds of sockets from one activity.
const concurrentRequests = 32;

/**
 * Attempt number `attempt` of `event` to each target: sign, POST, log, and act on the answer (a 410 deactivates).
 * A target whose attempt is already in the log (this activity ran before and was retried) is not sent again; its
 * logged answer stands. `sent` is called after each request, for heartbeats.
 */
export async function attemptDeliveries(
  deps: ActivityDeps,
  em: EntityManager,
  event: WorkspaceEvent,
  targets: readonly DeliveryTarget[],
  attempt: number,
  sent: () => void = () => {},
): Promise<TargetAttempt[]> {
  if (targets.length === 0) return [];
  const { plan } = await em.findOneOrFail(Workspace, event.workspaceId);
  if (!hasFeature(plan, 'webhooks')) {
    const error = stoppedByPlan(plan, 'webhooks');
    const attemptedAt = new Date();
    await logRound(em, event, attempt, targets.map((target) => ({ target, attemptedAt, response: { statusCode: null, durationMs: 0, error } })));
    webhookDeliveryAttempts.inc({ outcome: 'not-on-plan' }, targets.length);
    return targets.map(({ webhook, deliveryId }) => ({ webhookId: webhook.id, deliveryId, outcome: 'not-on-plan', statusCode: null, error }));
  }

  const logged = await loggedAnswers(em, targets, attempt);
  const toSend = targets.filter((target) => !logged.has(target.deliveryId));
  const imageKey = (event.details as PostEventDetails).imageKey;
  const body = webhookBody(event, imageKey && toSend.length > 0 ? await deps.storage.signedUrl(imageKey, imageLinkTtlSeconds) : null);
  const timestamp = Math.floor(Date.now() / 1000);

  const answers = await mapConcurrently(toSend, concurrentRequests, async (target) => {
    const attemptedAt = new Date();
    const response = await sendWebhook(deps, target.webhook, { deliveryId: target.deliveryId, timestamp, body });
    sent();
    return { target, attemptedAt, response };
  });
  await logRound(em, event, attempt, answers);

  const fresh = new Map(answers.map(({ target, response }) => [target.deliveryId, { statusCode: response.statusCode, error: response.error, outcome: outcomeOf(response) }]));
  // Counted once logged: a retried round skips what the log holds, so no attempt is counted twice.
  for (const { outcome } of fresh.values()) webhookDeliveryAttempts.inc({ outcome });
  for (const { target, response } of answers) {
    if (response.statusCode === 410) log.warn('webhook answered 410 Gone and was deactivated', { webhookId: target.webhook.id });
  }
  return targets.map(({ webhook, deliveryId }) => ({ webhookId: webhook.id, deliveryId, ...(fresh.get(deliveryId) ?? logged.get(deliveryId)!) }));
}

function outcomeOf(response: Pick<WebhookPostResult, 'statusCode' | 'permanent'>): DeliveryOutcome {
  if (isSuccessStatus(response.statusCode)) return 'delivered';
  if (response.statusCode === 410) return 'gone';
  return response.permanent ? 'unusable' : 'failed';
}

/**
 * What the log already holds for this attempt of these deliveries (a retried activity), by delivery id. The log
 * keeps the answer, not the outcome; whether the URL could ever work is told again from the URL itself.
 */
async function loggedAnswers(em: EntityManager, targets: readonly DeliveryTarget[], attempt: number) {
  const urls = new Map(targets.map((target) => [target.deliveryId, target.webhook.url]));
  const rows = await em.find(WebhookDelivery, { deliveryId: { $in: [...urls.keys()] }, attempt });
  return new Map(
    rows.map((row) => {
      const outcome = outcomeOf({ statusCode: row.statusCode ?? null, permanent: unusableUrlReason(urls.get(row.deliveryId)!) !== null });
      return [row.deliveryId, { statusCode: row.statusCode ?? null, error: row.error ?? null, outcome }] as const;
    }),
  );
}

type Answer = { target: DeliveryTarget; attemptedAt: Date; response: Pick<WebhookPostResult, 'statusCode' | 'durationMs' | 'error'> };

/**
 * Logs a round of attempts (each once, however often the activity is retried), touches `lastTriggeredAt` and
 * deactivates the webhooks that answered 410, in one transaction: three statements whatever the number of webhooks.
 */
async function logRound(em: EntityManager, event: WorkspaceEvent, attempt: number, answers: readonly Answer[]): Promise<void> {
  if (answers.length === 0) return;
  const gone = answers.filter(({ response }) => response.statusCode === 410).map(({ target }) => target.webhook.id);
  await em.transactional(async (tx) => {
    const rows = answers.map(({ target, attemptedAt, response }) => ({
      id: newId(),
      webhookId: target.webhook.id,
      eventId: event.id,
      eventType: event.type,
      deliveryId: target.deliveryId,
      attempt,
      attemptedAt,
      statusCode: response.statusCode,
      durationMs: Math.round(response.durationMs),
      succeeded: isSuccessStatus(response.statusCode),
      error: response.error,
    }));
    await tx.createQueryBuilder(WebhookDelivery).insert(rows).onConflict(['deliveryId', 'attempt']).ignore().execute();
    // One statement for the round: every webhook of it gets the round's latest attempt time.
    const attemptedAt = new Date(Math.max(...answers.map((answer) => answer.attemptedAt.getTime())));
    await tx.nativeUpdate(Webhook, { id: { $in: answers.map(({ target }) => target.webhook.id) } }, { lastTriggeredAt: attemptedAt });
    if (gone.length > 0) await tx.nativeUpdate(Webhook, { id: { $in: gone } }, { isActive: false });
  });
}
