import { setTimeout } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { slowAnswerMs, type DeliveryTarget, type TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { loggedDeliveryAnswers } from '../src/domain/webhooks/record-delivery-round.ts';
import { eventToDeliver } from '../src/domain/webhooks/event-to-deliver.ts';
import { deliveryIdOf } from '../src/adapters/webhook-sender/delivery-id.ts';
import { subscribedWebhooks } from '../src/adapters/webhook-sender/subscribed-webhooks.ts';
import type { Deps } from '../src/domain/deps.ts';
import { attemptDeliveries, attemptDeliveriesWithin } from './webhook-attempts.ts';

export type DeliverToWebhooksInput = {
  eventId: string;
  /** 1 for the first round; the rung of the retry ladder after that. */
  attempt: number;
  /** The webhooks whose delivery is still failing; absent on the first round, which goes to every subscriber. */
  webhookIds?: string[];
  /**
   * Webhooks among `webhookIds` whose request of this attempt is still under way from the local round that handed
   * them over (see DeferredWebhook): their answer is awaited in the log until `until` (epoch ms) instead of sent
   * again; one still missing then was lost with its worker, and is sent.
   */
  inFlight?: { webhookIds: string[]; until: number };
};

/** A webhook asked for that no longer takes the event (deactivated, deleted, unsubscribed): nothing is sent or logged. */
type SkippedWebhook = { webhookId: string; outcome: 'skipped' };
/**
 * A webhook that answers slowly, left out of an event's first round when it runs as a local activity, or still silent
 * when that round handed over (`inFlightUntil`: its request is under way, and its answer goes to the log when it
 * comes, until at latest then): the workflow finishes its attempt from an ordinary activity right after (see
 * slowAnswerMs in src/domain/webhooks/delivery-attempt.ts).
 */
export type DeferredWebhook = { webhookId: string; outcome: 'deferred'; inFlightUntil?: number };
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
  // A local round holds a workflow task slot while it runs: receivers known to be slow wait for an ordinary activity,
  // and the round hands over after slowAnswerMs whatever has not answered by then.
  const deferred = context.info.isLocal ? webhooks.filter((webhook) => webhook.answersSlowly) : [];
  const targets = webhooks.filter((webhook) => !deferred.includes(webhook)).map((webhook) => ({ webhook, deliveryId: deliveryIdOf(event.id, webhook.id) }));
  if (input.inFlight) await answersLogged(em, targets, input.inFlight, input.attempt, () => context.heartbeat());
  // Heartbeats let a worker that died mid-round be noticed within the heartbeat timeout, not the round's whole budget
  // (a local activity has none: its workflow task is what times out).
  const attempts = context.info.isLocal
    ? await attemptDeliveriesWithin(deps, em, found, targets, input.attempt, slowAnswerMs)
    : await attemptDeliveries(deps, em, found, targets, input.attempt, () => context.heartbeat());
  const taking = new Set(webhooks.map((webhook) => webhook.id));
  const skipped = (input.webhookIds ?? []).filter((id) => !taking.has(id)).map((webhookId): SkippedWebhook => ({ webhookId, outcome: 'skipped' }));
  return [...attempts, ...skipped, ...deferred.map((webhook): DeferredWebhook => ({ webhookId: webhook.id, outcome: 'deferred' }))];
}

// How often the log is read for the answer of a request a local round handed over.
const inFlightPollMs = 250;

/**
 * Waits until the log holds this attempt's answer of every handed-over delivery, or until the deadline: then
 * attemptDeliveries sends only what the log still lacks (a request lost with the worker that made it).
 */
async function answersLogged(
  em: EntityManager,
  targets: readonly DeliveryTarget[],
  inFlight: { webhookIds: string[]; until: number },
  attempt: number,
  beat: () => void,
) {
  const awaited = targets.filter((target) => inFlight.webhookIds.includes(target.webhook.id));
  while (awaited.length > 0 && Date.now() < inFlight.until) {
    if ((await loggedDeliveryAnswers(em.fork(), awaited, attempt)).size === awaited.length) return;
    beat();
    await setTimeout(inFlightPollMs);
  }
}
