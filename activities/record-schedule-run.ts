import { Context } from '@temporalio/activity';
import { recordScheduleRun } from '../src/domain/schedules/record-schedule-run.ts';
import { workflowIds } from '../src/adapters/temporal/workflow-ids.ts';
import type { Deps } from '../src/domain/deps.ts';
import { inOneStatement } from './database-work.ts';

/**
 * Records the run's outcome on its schedule at the firing the run belongs to, which the Temporal Schedule writes at
 * the end of the run's workflow ID: it is what `nextRunAt` said before the run and what the post's title says,
 * whatever the generation took or however long this activity waited out a database outage. A run started some other
 * way (no time in its ID) counts from now.
 */
export function recordScheduleRunAtItsFiring(deps: Deps, input: { scheduleId: string; error: string | null }): Promise<void> {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  const firing = workflowId === undefined ? undefined : workflowIds.scheduledGenerationFiringOf(input.scheduleId, workflowId);
  return inOneStatement(deps.orm, (em) => recordScheduleRun(em, { ...input, firing }));
}
