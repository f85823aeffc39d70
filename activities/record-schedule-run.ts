import { Context } from '@temporalio/activity';
import { Schedule } from '../src/data/entities/schedule.ts';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import type { ActivityDeps } from './index.ts';

/**
 * Keeps the outcome of the last run on the schedule: when it ran, and the error or none after a success. "When" is
 * the firing the run belongs to, which the Temporal Schedule writes at the end of the run's workflow ID: it is what
 * `nextRunAt` said before the run and what the post's title says, whatever the generation took or however long
 * this activity waited out a database outage. A run started some other way (no time in its ID) counts from now.
 */
export async function recordScheduleRun(deps: ActivityDeps, input: { scheduleId: string; error: string | null }): Promise<void> {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  const firing = workflowId === undefined ? undefined : workflowIds.scheduledGenerationFiringOf(input.scheduleId, workflowId);
  await deps.orm.em.fork().nativeUpdate(Schedule, { id: input.scheduleId }, { lastRunAt: firing ?? new Date(), lastRunError: input.error });
}
