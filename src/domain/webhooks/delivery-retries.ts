import { QueryNotRegisteredError, type Client } from '@temporalio/client';
import { describeWorkflow, inTemporal, temporalDeadline } from '../../temporal/workflow-gateway.ts';
import { workflowIds } from '../../temporal/workflow-ids.ts';
import { retryingWebhooksQuery } from '../../../workflows/deliver-event.ts';

const purpose = "report the delivery's retries";

/**
 * Whether the delivery of `eventId` to `webhookId` is still on its automatic retry schedule, i.e. a next attempt
 * is already waiting on a durable timer. Asked of the event's workflow; a delivery started before deliveries moved
 * into it runs in a workflow of its own, which is retrying for as long as it runs.
 */
export async function isDeliveryRetrying(temporal: Client, eventId: string, webhookId: string): Promise<boolean> {
  // One deadline for the three questions (see temporalDeadline).
  const deadline = temporalDeadline();
  if (await isRunning(temporal, workflowIds.webhookDelivery(webhookId, eventId), deadline)) return true;
  if (!(await isRunning(temporal, workflowIds.eventDelivery(eventId), deadline))) return false;
  return inTemporal(temporal, purpose, async () => {
    try {
      return (await temporal.workflow.getHandle(workflowIds.eventDelivery(eventId)).query(retryingWebhooksQuery)).includes(webhookId);
    } catch (error) {
      // An event workflow from before the query existed only dispatches: its deliveries are still being started.
      if (error instanceof QueryNotRegisteredError) return true;
      throw error;
    }
  }, deadline);
}

async function isRunning(temporal: Client, workflowId: string, deadline: number): Promise<boolean> {
  return (await describeWorkflow(temporal, workflowId, purpose, deadline))?.status.name === 'RUNNING';
}
