import { WorkflowNotFoundError } from '@temporalio/client';
import { Workspace } from '../src/adapters/database/entities/workspace.ts';
import type { Deps } from '../src/domain/deps.ts';
import { hasFeature } from '../src/domain/workspaces/plans.ts';
import { planChangedSignal } from '../workflows/contracts/deliver-event.ts';
import { runningDeliveriesOf } from '../src/domain/events/hand-over-event.ts';

/**
 * On a plan without webhooks, wakes the workspace's event deliveries that wait on the retry ladder, so that they
 * stop now (their next round reads the plan, logs why and ends) rather than at their next rung, hours away. Found
 * through Temporal's visibility store, which lags a moment behind: a delivery it does not list yet stops at its
 * next round, which reads the plan too. Returns how many were woken; none on a plan with webhooks.
 */
export async function stopWorkspaceDeliveries(deps: Deps, { workspaceId }: { workspaceId: string }): Promise<number> {
  const workspace = await deps.orm.em.fork().findOne(Workspace, workspaceId);
  if (!workspace || hasFeature(workspace.plan, 'webhooks')) return 0;
  let woken = 0;
  for await (const run of deps.temporal.workflow.list({ query: runningDeliveriesOf(workspaceId) })) {
    try {
      await deps.temporal.workflow.getHandle(run.workflowId, run.runId).signal(planChangedSignal);
      woken += 1;
    } catch (error) {
      // It ended between the list and the signal.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  return woken;
}
