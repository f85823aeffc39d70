import { WebhookDelivery } from '../../adapters/database/entities/webhook-delivery.ts';
import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import { AppError, notFound } from '../../common/errors/app-error.ts';
import { searchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { describeWorkflow, tryStartWorkflow } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { redeliverWebhook } from '../../../workflows/redeliver-webhook.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { isDeliveryRetrying } from './delivery-retries.ts';
import { findWebhook } from '../find-in-workspace.ts';
import { effectOf, recordIntent } from '../idempotency/request-effects.ts';

export type Redelivery = { deliveryId: string; attempt: number };

/**
 * Sends a logged delivery again, under the same delivery id, as the next attempt of the delivery log. The attempt
 * is a side effect that must happen and be logged even if this process dies, so it runs in a workflow of its own
 * (`webhook-redelivery-<deliveryId>-<attempt>`); the caller does not wait for the receiver. The workflow ID makes
 * two redeliveries of the same attempt impossible: of two at once, one starts and the other answers 409. A keyed
 * request records the attempt it is about to start before starting it, so a retry whose first answer was lost starts
 * (or finds started) that same attempt, never the next one.
 */
export async function redeliverWebhookDelivery(deps: Deps, caller: Caller, webhookId: string, deliveryId: string, requestKey?: string): Promise<Redelivery> {
  requireFeature(caller.plan, 'webhooks');
  const em = deps.orm.em.fork();
  const webhook = await findWebhook(em, caller.workspaceId, webhookId);
  const latest = await em.findOne(WebhookDelivery, { webhookId: webhook.id, deliveryId }, { orderBy: { attempt: 'desc' } });
  if (!latest) throw notFound(`Delivery ${deliveryId} of webhook ${webhook.id}`);
  const event = await em.findOne(WorkspaceEvent, latest.eventId);
  const startedBy = async (attempt: number) =>
    (await describeWorkflow(deps.temporal, workflowIds.webhookRedelivery(deliveryId, attempt), 'report the redelivery'))?.memo?.requestKey;
  const start = (attempt: number) =>
    tryStartWorkflow(
      deps.temporal,
      redeliverWebhook,
      {
        workflowId: workflowIds.webhookRedelivery(deliveryId, attempt),
        taskQueue: deps.taskQueue,
        args: [{ webhookId: webhook.id, eventId: latest.eventId, deliveryId, attempt }],
        // An attempt that has been sent stays sent: its number can never be started again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Which request started the attempt, so that a retry of it knows the attempt for its own.
        ...(requestKey === undefined ? {} : { memo: { requestKey } }),
        staticSummary: `Redeliver ${latest.eventType} as attempt ${attempt} of delivery ${deliveryId}`,
        typedSearchAttributes: [
          { key: searchAttributes.workspaceId, value: webhook.workspaceId },
          ...(event?.postId ? [{ key: searchAttributes.postId, value: event.postId }] : []),
        ],
      },
      'the redelivery',
    );

  const recorded = requestKey === undefined ? undefined : await effectOf(em, caller.workspaceId, requestKey, redeliveryEffect);
  let firstAttempt = latest.attempt + 1;
  if (recorded) {
    const attempt = attemptOf(recorded.resourceId);
    if ((await start(attempt)).state === 'started' || (await startedBy(attempt)) === requestKey) return { deliveryId, attempt };
    // Another redelivery took that number before this request's start got there: this one goes on to the next.
    firstAttempt = Math.max(firstAttempt, attempt + 1);
  }
  if (!webhook.isActive) {
    throw new AppError('conflict', `Webhook ${webhook.id} is inactive, so nothing is delivered to it; activate it (PUT isActive: true) and redeliver.`);
  }
  if (await isDeliveryRetrying(deps.temporal, latest.eventId, webhook.id)) {
    throw new AppError(
      'conflict',
      `Delivery ${deliveryId} is still on its automatic retry schedule: its next attempt is already scheduled. Redeliver once it has succeeded or its retries have ended.`,
    );
  }

  // Each pass meets a run of that number that has ended; the loop ends at the first free number.
  for (let attempt = firstAttempt; ; attempt += 1) {
    if (requestKey !== undefined) await recordIntent(em, caller.workspaceId, requestKey, redeliveryEffect, { resourceId: `${deliveryId}/${attempt}` });
    const started = await start(attempt);
    if (started.state === 'started') return { deliveryId, attempt };
    if (started.state === 'running') {
      throw new AppError('conflict', `A redelivery of delivery ${deliveryId} is already under way (attempt ${attempt}); wait for it in the delivery log.`);
    }
    // That attempt has ended: it is in the log by now (a redelivery that raced this one), or it could not be made
    // (the webhook was switched off meanwhile) and its number stays used. Either way the next one is free.
  }
}

const redeliveryEffect = 'webhook-redelivery';

/** The attempt number of a recorded redelivery (`<deliveryId>/<attempt>`). */
function attemptOf(resourceId: string): number {
  return Number(resourceId.slice(resourceId.lastIndexOf('/') + 1));
}
