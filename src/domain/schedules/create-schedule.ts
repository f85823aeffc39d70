import { Schedule } from '../../adapters/database/entities/schedule.ts';
import { findBrandKit, findProject } from '../find-in-workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireFeature, requireQuota, requireScheduleInterval } from '../workspaces/plans.ts';
import { shortestCronIntervalMinutes, validateCronExpression } from './cron-expression.ts';
import { inTemporal, temporalDeadline } from '../../adapters/temporal/workflow-gateway.ts';
import { validatePromptTemplate } from './prompt-template.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';
import { createOnce } from '../idempotency/request-effects.ts';
import { createTemporalSchedule, deleteTemporalSchedule } from './temporal-schedule.ts';

export type CreateScheduleInput = { name: string; cronExpression: string; promptTemplate?: string; projectId?: string; brandKitId?: string };

/**
 * A new active schedule. Under the workspace's lock (the plan and the number of schedules are read there, so two
 * creates at once cannot both take the last place, and a plan change waits for it) the row is written and its
 * Temporal Schedule created, then the transaction commits. Should Temporal or the commit fail, the Temporal
 * Schedule is taken back. What this cannot settle is left to the reconcile step: a crash between Temporal's answer
 * and the commit leaves a Temporal Schedule without its row. A keyed request's schedule is recorded with its row,
 * so a retry whose first answer was lost answers that schedule. Both calls to Temporal share one deadline: taking back a
 * change that Temporal did not answer in time gets what time is left (none, when it hung), and what it cannot take
 * back is reconcile's.
 */
export async function createSchedule(deps: Deps, caller: Caller, input: CreateScheduleInput, requestKey?: string): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  const cronExpression = validateCronExpression(input.cronExpression);
  validatePromptTemplate(input.promptTemplate);
  let sentToTemporal: Schedule | undefined;
  const deadline = temporalDeadline(deps.temporal);
  try {
    const schedule = await deps.orm.em.fork().transactional(async (em) => {
      const find = (id: string) => em.findOne(Schedule, { id, workspaceId: caller.workspaceId });
      return createOnce(em, caller.workspaceId, requestKey, { type: 'schedule', find }, async () => {
        const { plan } = await lockWorkspace(em, caller.workspaceId);
        requireFeature(plan, 'schedules');
        requireScheduleInterval(plan, cronExpression, shortestCronIntervalMinutes(cronExpression));
        requireQuota(plan, 'schedules', await em.count(Schedule, { workspaceId: caller.workspaceId }));
        if (input.projectId) await findProject(em, caller.workspaceId, input.projectId);
        if (input.brandKitId) await findBrandKit(em, caller.workspaceId, input.brandKitId);
        const row = em.create(Schedule, {
          workspaceId: caller.workspaceId,
          name: input.name,
          cronExpression,
          promptTemplate: input.promptTemplate ?? null,
          projectId: input.projectId ?? null,
          brandKitId: input.brandKitId ?? null,
          isActive: true,
          lastRunAt: null,
          lastRunError: null,
        });
        await em.flush();
        sentToTemporal = row;
        await inTemporal(deps.temporal, 'accept the schedule change', () => createTemporalSchedule(deps.temporal, row, deps.taskQueue, plan), deadline);
        return row;
      });
    });
    return viewOf(schedule);
  } catch (error) {
    // Also when Temporal failed to answer: it may have created the schedule and answered too late.
    if (sentToTemporal) {
      const { id } = sentToTemporal;
      await inTemporal(deps.temporal, 'take the schedule back', () => deleteTemporalSchedule(deps.temporal, id), deadline).catch((undo: unknown) =>
        deps.logger.warn({ err: undo, scheduleId: id }, 'orphan schedule left for reconcile'),
      );
    }
    throw error;
  }
}
