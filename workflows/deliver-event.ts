import { condition, proxyActivities, proxyLocalActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import type { Activities, DeferredWebhook, RoundResult } from '../activities/activity-signatures.ts';
import {
  planChangedSignal,
  retryingWebhooksQuery,
  type DeliverEventInput,
  type EventDeliveryResult,
  type WebhookDeliveryResult,
} from './contracts/deliver-event.ts';
import { localWebhookRound, webhookRound } from './contracts/activity-options.ts';
import { utc } from './current-details.ts';

// The first round runs as a local activity, inside the workflow's first task: on the success path an event costs
// Temporal one workflow task and no activity task, which is what lets delivery keep pace with publishing. A worker
// that dies mid-round loses the task, and the next worker runs the round again (what the log holds is not sent twice).
const local = proxyLocalActivities<Activities>(localWebhookRound);

/**
 * The first attempt to every webhook, from the local activity; the slow receivers it left out, and those still silent
 * when it handed over (a local activity holds a workflow task slot while it runs), get theirs from an ordinary
 * activity at once on the slow-webhooks task queue, which waits for the answers of the requests already under way
 * instead of sending them again.
 */
async function firstRound(eventId: string, requestTimeoutSeconds: number | undefined): Promise<Answered[]> {
  const round = await local.deliverToWebhooks({ eventId, attempt: 1 });
  const deferred = round.filter((result) => result.outcome === 'deferred');
  if (deferred.length === 0) return answered(round);
  const inFlight = deferred.filter((result) => result.inFlightUntil !== undefined);
  // On a queue of its own: slow receivers wait on sockets for seconds, in slots nothing else needs.
  const { deliverToWebhooks: deliverToSlowWebhooks } = proxyActivities<Activities>({
    ...webhookRound(requestTimeoutSeconds),
    taskQueue: taskQueues.slowWebhooks(workflowInfo().taskQueue),
  });
  const rest = await deliverToSlowWebhooks({
    eventId,
    attempt: 1,
    webhookIds: deferred.map((result) => result.webhookId),
    ...(inFlight.length > 0
      ? { inFlight: { webhookIds: inFlight.map((result) => result.webhookId), until: Math.max(...inFlight.map((result) => result.inFlightUntil!)) } }
      : {}),
  });
  return [...answered(round), ...answered(rest)];
}

type Answered = Exclude<RoundResult[number], DeferredWebhook>;

/** What a round answered; only a local round defers a webhook. */
function answered(round: RoundResult): Answered[] {
  return round.filter((result): result is Answered => result.outcome !== 'deferred');
}

/**
 * Delivers one event (`event-<eventId>`) to every subscribed webhook. The first attempts to all of them go out at
 * once from one activity (to a slow receiver, from one of its own: see firstRound); only the deliveries that failed wait on the retry ladder, as this workflow's timers, and
 * go out again together at each rung. One workflow per event whatever the number of webhooks: a failing webhook
 * costs a timer and an activity per rung, never a workflow. Started for the workflow that recorded the event, which
 * does not wait for it.
 */
export async function deliverEvent({ eventId, retryWaitsSeconds, requestTimeoutSeconds }: DeliverEventInput): Promise<EventDeliveryResult> {
  // Unbounded while the database or Temporal is down (see webhookRound); nothing waits for this workflow, so a long
  // outage delays the event's deliveries and nothing else.
  const { deliverToWebhooks } = proxyActivities<Activities>(webhookRound(requestTimeoutSeconds));
  const results = new Map<string, WebhookDeliveryResult>();
  let retrying: string[] = [];
  let planChanged = false;
  setHandler(retryingWebhooksQuery, () => retrying);
  setHandler(planChangedSignal, () => {
    planChanged = true;
  });

  for (let attempt = 1; ; attempt += 1) {
    const round =
      attempt === 1 ? await firstRound(eventId, requestTimeoutSeconds) : answered(await deliverToWebhooks({ eventId, attempt, webhookIds: retrying }));
    for (const result of round) {
      const deliveryId = 'deliveryId' in result ? result.deliveryId : results.get(result.webhookId)?.deliveryId;
      const attempts = result.outcome === 'skipped' ? attempt - 1 : attempt;
      results.set(result.webhookId, { webhookId: result.webhookId, ...(deliveryId ? { deliveryId } : {}), outcome: result.outcome, attempts });
    }
    retrying = round.filter((result) => result.outcome === 'failed').map((result) => result.webhookId);
    const waitSeconds = retryWaitsSeconds[attempt - 1];
    if (retrying.length === 0 || waitSeconds === undefined) break;
    const wait = waitSeconds * 1000;
    // What the Temporal UI shows while the run sleeps (not a command: changing it never affects replay).
    setCurrentDetails(`${retrying.length} webhook(s) failing; attempt ${attempt + 1} of ${retryWaitsSeconds.length + 1} at ${utc(Date.now() + wait)}`);
    // The retry ladder's timer, cut short by a plan change.
    await condition(() => planChanged, wait);
    planChanged = false;
  }
  setCurrentDetails('');
  for (const webhookId of retrying) results.get(webhookId)!.outcome = 'exhausted';
  retrying = [];
  return { webhooks: [...results.values()] };
}
