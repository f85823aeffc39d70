import { Workspace } from '../../adapters/database/entities/workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature, requireScheduleInterval } from '../workspaces/plans.ts';
import { shortestCronIntervalMinutes, validateCronExpression } from './cron-expression.ts';
import { findSchedule } from '../find-in-workspace.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import { validatePromptTemplate } from './prompt-template.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';
import { updateTemporalSchedule } from './temporal-schedule.ts';

export type UpdateScheduleInput = { name?: string; cronExpression?: string; isActive?: boolean; promptTemplate?: string | null };

/**
 * Changes name, cron, template and `isActive` (pause and unpause the Temporal Schedule). Temporal is updated inside
 * the transaction: if it refuses, nothing changed; should the commit fail after, the reconcile step puts Temporal
 * back in line with the database. The plan is read after the row is locked, as the plan's own workflow does
 * (applyWorkspacePlan), so a change racing a downgrade cannot leave the schedule running on Starter.
 */
export async function updateSchedule(deps: Deps, caller: Caller, id: string, input: UpdateScheduleInput): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  const cronExpression = input.cronExpression === undefined ? undefined : validateCronExpression(input.cronExpression);
  validatePromptTemplate(input.promptTemplate);
  const schedule = await deps.orm.em.fork().transactional(async (em) => {
    const row = await findSchedule(em, caller.workspaceId, id, { lock: true });
    const { plan } = await em.findOneOrFail(Workspace, caller.workspaceId, { refresh: true });
    requireFeature(plan, 'schedules');
    if (cronExpression !== undefined) requireScheduleInterval(plan, cronExpression, shortestCronIntervalMinutes(cronExpression));
    if (input.name !== undefined) row.name = input.name;
    if (cronExpression !== undefined) row.cronExpression = cronExpression;
    if (input.isActive !== undefined) row.isActive = input.isActive;
    if (input.promptTemplate !== undefined) row.promptTemplate = input.promptTemplate;
    await inTemporal(deps.temporal, 'accept the schedule change', () => updateTemporalSchedule(deps.temporal, row, deps.taskQueue, plan));
    return row;
  });
  return viewOf(schedule);
}
