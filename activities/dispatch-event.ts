import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Webhook } from '../src/data/entities/webhook.ts';
import { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import { searchAttributes } from '../src/temporal/search-attributes.ts';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import { subscribesTo } from '../src/webhooks/event-names.ts';
import type { deliverWebhook } from '../workflows/deliver-webhook.ts';
import type { ActivityDeps } from './index.ts';

/**
 * Starts one delivery workflow per active webhook of the event's workspace that subscribes to its type. The
 * deliveries are workflows of their own (they may retry for days, long after whatever recorded the event), and
 * their IDs make a retried dispatch start nothing twice.
 */
export async function dispatchEvent(deps: ActivityDeps, input: { eventId: string }): Promise<{ deliveries: number }> {
  const em = deps.orm.em.fork();
  const event = await em.findOne(WorkspaceEvent, input.eventId);
  if (!event) return { deliveries: 0 };
  const webhooks = (await em.find(Webhook, { workspaceId: event.workspaceId, isActive: true }, { orderBy: { createdAt: 'asc' } })).filter(
    (webhook) => subscribesTo(webhook.events, event.type),
  );
  for (const webhook of webhooks) {
    try {
      await deps.temporal.workflow.start<typeof deliverWebhook>('deliverWebhook', {
        workflowId: workflowIds.webhookDelivery(webhook.id, event.id),
        taskQueue: deps.taskQueue,
        args: [{ webhookId: webhook.id, eventId: event.id }],
        staticSummary: `Deliver ${event.type} to ${new URL(webhook.url).host}`,
        typedSearchAttributes: [
          { key: searchAttributes.workspaceId, value: event.workspaceId },
          ...(event.postId ? [{ key: searchAttributes.postId, value: event.postId }] : []),
        ],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return { deliveries: webhooks.length };
}
