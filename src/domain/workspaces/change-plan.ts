import { Workspace, type Plan } from '../../adapters/database/entities/workspace.ts';
import { notFound } from '../../common/errors/app-error.ts';
import { searchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { applyWorkspacePlan } from '../../../workflows/apply-workspace-plan.ts';
import type { Deps } from '../deps.ts';

/**
 * Operator action. Downgrading keeps existing projects, brand kits, schedules and webhooks: limits apply to what is
 * created or re-activated from then on, so nobody loses data by changing plan. The change commits under the
 * workspace's lock (creates that count against the plan take it too), then the workflow `workspace-plan-<id>`
 * applies it in Temporal: schedules paused on Starter and resumed on Growth, deliveries stopped. Should Temporal
 * not take the start, the plan is changed but not yet applied (runs and deliveries still refuse, since they read the
 * plan): running the same change again starts the workflow, which replaces any run still applying an older change.
 */
export async function changePlan(deps: Pick<Deps, 'orm' | 'temporal' | 'taskQueue'>, workspaceId: string, plan: Plan): Promise<Workspace> {
  const workspace = await deps.orm.em.fork().transactional(async (em) => {
    const found = await em.findOne(Workspace, workspaceId);
    if (!found) throw notFound(`Workspace ${workspaceId}`);
    found.plan = plan;
    return found;
  });
  await inTemporal(deps.temporal, `apply the ${plan} plan to the workspace's schedules and webhooks (the plan is changed: run the command again)`, () =>
    deps.temporal.workflow.start(applyWorkspacePlan, {
      workflowId: workflowIds.workspacePlan(workspaceId),
      taskQueue: deps.taskQueue,
      args: [{ workspaceId }],
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
      staticSummary: `Apply the ${plan} plan to workspace ${workspaceId}`,
      typedSearchAttributes: [{ key: searchAttributes.workspaceId, value: workspaceId }],
    }),
  );
  return workspace;
}
