import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { validateCronExpression } from './cron-expression.ts';
import { findSchedule } from './find-schedule.ts';
import { inTemporal } from '../../temporal/workflow-gateway.ts';
import { validatePromptTemplate } from './prompt-template.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';
import { updateTemporalSchedule } from './temporal-schedule.ts';

export type UpdateScheduleInput = { name?: string; cronExpression?: string; isActive?: boolean; promptTemplate?: string | null };

/**
 * Changes name, cron, template and `isActive` (pause and unpause the Temporal Schedule). Temporal is updated inside
 * the transaction: if it refuses, nothing changed; should the commit fail after, the reconcile step puts Temporal
 * back in line with the database.
 */
export async function updateSchedule(deps: Deps, caller: Caller, id: string, input: UpdateScheduleInput): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  const cronExpression = input.cronExpression === undefined ? undefined : validateCronExpression(input.cronExpression);
  validatePromptTemplate(input.promptTemplate);
  const schedule = await deps.orm.em.fork().transactional(async (em) => {
    const row = await findSchedule(em, caller.workspaceId, id, { lock: true });
    if (input.name !== undefined) row.name = input.name;
    if (cronExpression !== undefined) row.cronExpression = cronExpression;
    if (input.isActive !== undefined) row.isActive = input.isActive;
    if (input.promptTemplate !== undefined) row.promptTemplate = input.promptTemplate;
    await inTemporal(deps.temporal, 'accept the schedule change', () => updateTemporalSchedule(deps.temporal, row, deps.taskQueue));
    return row;
  });
  return viewOf(schedule);
}
