import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import type { deliverEvent } from '../workflows/deliver-event.ts';
import type { ActivityDeps } from './index.ts';

/**
 * Hands an event to its own workflow (`event-<eventId>`) and returns once Temporal has it: the workflow that
 * recorded the event never waits for webhooks. A top-level workflow rather than an abandoned child, so it carries
 * nothing of its starter's life; its ID makes a retried start start nothing twice.
 */
export async function startEventDelivery(deps: ActivityDeps, input: { eventId: string }): Promise<void> {
  try {
    await deps.temporal.workflow.start<typeof deliverEvent>('deliverEvent', {
      workflowId: workflowIds.eventDelivery(input.eventId),
      taskQueue: deps.taskQueue,
      args: [{ eventId: input.eventId }],
      staticSummary: `Deliver event ${input.eventId} to its webhooks`,
      // An event's delivery that has ended stays ended: handing the event over again (a retried activity) starts nothing.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
