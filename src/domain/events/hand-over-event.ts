import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import { startsEagerly } from '../../adapters/temporal/connect.ts';
import { searchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { typeIfSubscribed } from '../../adapters/webhook-sender/subscribed-webhooks.ts';
import { deliverEventType, type DeliverEvent } from '../../../workflows/contracts/deliver-event.ts';
import type { Deps } from '../deps.ts';

/**
 * The visibility query that finds a workspace's event deliveries still running: by the search attribute each
 * is started with below.
 */
export function runningDeliveriesOf(workspaceId: string): string {
  return `WorkflowType = '${deliverEventType}' AND ExecutionStatus = 'Running' AND ${searchAttributes.workspaceId.name} = '${workspaceId}'`;
}

/**
 * Hands a recorded event to its own workflow (`event-<eventId>`) and returns once Temporal has it, then marks the
 * event handed over: whoever recorded it never waits for webhooks, and the event sweep (handOverForgottenEvents)
 * hands over the events whose recorder never got this far (Temporal down, a crash right after the commit). A
 * top-level workflow rather than an abandoned child, so it carries nothing of its starter's life; its ID makes a
 * second hand-over (a retried activity, the sweep meeting its recorder) start nothing twice. An event that no active
 * webhook takes starts nothing and is marked all the same: most workspaces have no webhooks, and their publishes
 * should cost no delivery workflow. Returns whether a delivery was started.
 */
export async function handOverEvent(deps: Pick<Deps, 'orm' | 'temporal' | 'taskQueue' | 'webhooks'>, eventId: string): Promise<{ started: boolean }> {
  const em = deps.orm.em.fork();
  const subscribed = await typeIfSubscribed(em, eventId);
  if (subscribed) {
    const { type, workspaceId } = subscribed;
    try {
      await deps.temporal.workflow.start<DeliverEvent>(deliverEventType, {
        workflowId: workflowIds.eventDelivery(eventId),
        taskQueue: deps.taskQueue,
        args: [{ eventId, retryWaitsSeconds: deps.webhooks.retryWaitsSeconds, requestTimeoutSeconds: deps.webhooks.timeoutMs / 1000 }],
        staticSummary: `Deliver ${type} (event ${eventId}) to its webhooks`,
        // Also what a downgrade finds the workspace's deliveries by, to stop them (stop-workspace-deliveries.ts).
        typedSearchAttributes: [{ key: searchAttributes.workspaceId, value: workspaceId }],
        // An event's delivery that has ended stays ended: handing the event over again starts nothing.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Its first task (the first round of deliveries) then runs on this worker at once, without a trip through the
        // task queue: what an event's delivery costs Temporal is most of what bounds deliveries per second.
        requestEagerStart: startsEagerly(deps.temporal),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  await em.nativeUpdate(WorkspaceEvent, { id: eventId, handedOverAt: null }, { handedOverAt: new Date() });
  return { started: subscribed !== null };
}
