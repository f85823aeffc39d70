import type { Client } from '@temporalio/client';
import { describeWorkflow, inTemporal, temporalDeadline } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { retryingWebhooksQuery } from '../../../workflows/contracts/deliver-event.ts';

const purpose = "report the delivery's retries";

/**
 * Whether the delivery of `eventId` to `webhookId` is still on its automatic retry schedule, i.e. a next attempt
 * is already waiting on a durable timer. Asked of the event's workflow.
 */
export async function isDeliveryRetrying(temporal: Client, eventId: string, webhookId: string): Promise<boolean> {
  // One deadline for both questions (see temporalDeadline).
  const deadline = temporalDeadline(temporal);
  if (!(await isRunning(temporal, workflowIds.eventDelivery(eventId), deadline))) return false;
  return inTemporal(
    temporal,
    purpose,
    async () => (await temporal.workflow.getHandle(workflowIds.eventDelivery(eventId)).query(retryingWebhooksQuery)).includes(webhookId),
    deadline,
  );
}

async function isRunning(temporal: Client, workflowId: string, deadline: number): Promise<boolean> {
  return (await describeWorkflow(temporal, workflowId, purpose, deadline))?.status.name === 'RUNNING';
}
