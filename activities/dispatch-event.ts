import { log } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import { searchAttributes } from '../src/temporal/search-attributes.ts';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import { deliveryIdOf } from '../src/webhooks/delivery-id.ts';
import { subscribedWebhooks } from '../src/webhooks/subscribed-webhooks.ts';
import { deliverWebhook } from '../workflows/deliver-webhook.ts';
import { isDependencyDown } from './dependency-down.ts';
import type { Deps } from '../src/domain/deps.ts';

/**
 * Legacy: only replays of `deliverEvent` runs started before the fan-out (workflows/deliver-event.ts) schedule this;
 * it can go with the patch. Starts one delivery workflow per active webhook of the event's workspace that subscribes to its type. The
 * deliveries are workflows of their own (they may retry for days), and their IDs make a retried dispatch start
 * nothing twice. One webhook never stops the others: a start that fails for a reason of its own is logged and
 * skipped; when Temporal is down, the others are still tried and the dispatch is then retried as a whole.
 */
export async function dispatchEvent(deps: Deps, input: { eventId: string }): Promise<{ deliveries: number }> {
  const em = deps.orm.em.fork();
  const event = await em.findOne(WorkspaceEvent, input.eventId);
  if (!event) return { deliveries: 0 };
  const webhooks = await subscribedWebhooks(em, event);
  let unavailable: Error | undefined;
  for (const webhook of webhooks) {
    try {
      await deps.temporal.workflow.start(deliverWebhook, {
        workflowId: workflowIds.webhookDelivery(webhook.id, event.id),
        taskQueue: deps.taskQueue,
        args: [{ webhookId: webhook.id, eventId: event.id, deliveryId: deliveryIdOf(event.id, webhook.id) }],
        // The ID of a delivery that has ended stays taken: a re-dispatched event never delivers twice.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: `Deliver ${event.type} to ${hostOf(webhook.url)}`,
        typedSearchAttributes: [
          { key: searchAttributes.workspaceId, value: event.workspaceId },
          ...(event.postId ? [{ key: searchAttributes.postId, value: event.postId }] : []),
        ],
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) continue;
      if (isDependencyDown(error)) unavailable = error as Error;
      else log.error('the delivery of an event to a webhook could not be started', { err: error, webhookId: webhook.id, eventId: event.id });
    }
  }
  if (unavailable) throw unavailable;
  return { deliveries: webhooks.length };
}

/** For the run's summary only: a stored URL may be unusable, which its delivery reports in the log. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host || url : 'an unusable URL';
}
