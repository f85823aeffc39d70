import { Context } from '@temporalio/activity';
import type { TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { eventToDeliver } from '../src/domain/webhooks/event-to-deliver.ts';
import { deliveryIdOf } from '../src/adapters/webhook-sender/delivery-id.ts';
import { subscribedWebhooks } from '../src/adapters/webhook-sender/subscribed-webhooks.ts';
import type { Deps } from '../src/domain/deps.ts';
import { attemptDeliveries } from './webhook-attempts.ts';

export type DeliverToWebhooksInput = {
  eventId: string;
  /** 1 for the first round; the rung of the retry ladder after that. */
  attempt: number;
  /** The webhooks whose delivery is still failing; absent on the first round, which goes to every subscriber. */
  webhookIds?: string[];
};

/** A webhook asked for that no longer takes the event (deactivated, deleted, unsubscribed): nothing is sent or logged. */
export type SkippedWebhook = { webhookId: string; outcome: 'skipped' };
/**
 * A webhook that answers slowly, left out of an event's first round when it runs as a local activity: the workflow
 * sends to it from an ordinary activity right after (see slowAnswerMs in src/domain/webhooks/delivery-attempt.ts).
 */
export type DeferredWebhook = { webhookId: string; outcome: 'deferred' };
export type RoundResult = Array<TargetAttempt | SkippedWebhook | DeferredWebhook>;

/**
 * One round of an event's delivery: attempt `attempt` to every active webhook that subscribes to the event (or to
 * the given ones), all at once, under the delivery id derived from (event, webhook). What failed in a way that may
 * work later comes back as `failed`, for the workflow's retry ladder.
 */
export async function deliverToWebhooks(deps: Deps, input: DeliverToWebhooksInput): Promise<RoundResult> {
  const em = deps.orm.em.fork();
  const found = await eventToDeliver(em, input.eventId);
  if (!found) return (input.webhookIds ?? []).map((webhookId) => ({ webhookId, outcome: 'skipped' }));
  const { event } = found;
  const webhooks = await subscribedWebhooks(em, event, input.webhookIds);
  const context = Context.current();
  // A local round holds a workflow task slot until its last answer: slow receivers wait for an ordinary activity.
  const deferred = context.info.isLocal ? webhooks.filter((webhook) => webhook.answersSlowly) : [];
  const targets = webhooks.filter((webhook) => !deferred.includes(webhook)).map((webhook) => ({ webhook, deliveryId: deliveryIdOf(event.id, webhook.id) }));
  // Heartbeats let a worker that died mid-round be noticed within the heartbeat timeout, not the round's whole budget
  // (a local activity has none: its workflow task is what times out).
  const attempts = await attemptDeliveries(deps, em, found, targets, input.attempt, context.info.isLocal ? undefined : () => context.heartbeat());
  const taking = new Set(webhooks.map((webhook) => webhook.id));
  const skipped = (input.webhookIds ?? []).filter((id) => !taking.has(id)).map((webhookId): SkippedWebhook => ({ webhookId, outcome: 'skipped' }));
  return [...attempts, ...skipped, ...deferred.map((webhook): DeferredWebhook => ({ webhookId: webhook.id, outcome: 'deferred' }))];
}
