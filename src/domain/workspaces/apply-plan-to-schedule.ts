import { LockMode } from '@mikro-orm/postgresql';
import { ScheduleNotFoundError } from '@temporalio/client';
import { Schedule } from '../../adapters/database/entities/schedule.ts';
import { Workspace } from '../../adapters/database/entities/workspace.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import type { Deps } from '../deps.ts';
import { createTemporalSchedule, updateTemporalSchedule } from '../schedules/temporal-schedule.ts';

/**
 * Puts one schedule's Temporal Schedule in line with its workspace's plan as it is now (paused on a plan without
 * schedules, or by the customer; running otherwise). The row is locked first and the plan read after, as a schedule
 * change through the API does (updateSchedule), so the last of the two to commit decides; a Temporal Schedule found
 * missing is created. Nothing to do for a schedule deleted meanwhile.
 */
export async function applyPlanToSchedule(deps: Deps, { scheduleId }: { scheduleId: string }): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    const row = await em.findOne(Schedule, scheduleId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) return;
    const { plan } = await em.findOneOrFail(Workspace, row.workspaceId);
    // Within one deadline: the row stays locked until Temporal answers, and a hung Temporal must not hold it (a
    // customer's change waits on that lock); a deadline passed is an outage, retried.
    await inTemporal(deps.temporal, 'apply the plan to the schedule', async () => {
      try {
        await updateTemporalSchedule(deps.temporal, row, deps.taskQueue, plan);
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
        await createTemporalSchedule(deps.temporal, row, deps.taskQueue, plan);
      }
    });
  });
}
