import { Schedule } from '../../data/entities/schedule.ts';
import { findBrandKit } from '../brand-kits/find-brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findProject } from '../projects/find-project.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { validateCronExpression } from './cron-expression.ts';
import { inTemporal, temporalDeadline } from '../../temporal/workflow-gateway.ts';
import { validatePromptTemplate } from './prompt-template.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';
import { createTemporalSchedule, deleteTemporalSchedule } from './temporal-schedule.ts';

export type CreateScheduleInput = { name: string; cronExpression: string; promptTemplate?: string; projectId?: string; brandKitId?: string };

/**
 * A new active schedule: its Temporal Schedule first, then its row, in one statement, so no transaction stays open
 * (holding a pooled connection) while Temporal answers. Should either step fail, the Temporal Schedule is taken
 * back. What this cannot settle is left to the reconcile step, as with a commit: a crash in between leaves a
 * Temporal Schedule without its row, and an insert that committed but whose answer was lost leaves a row whose
 * Temporal Schedule was taken back. Both calls to Temporal share one deadline: taking back a change that Temporal
 * did not answer in time gets what time is left (none, when it hung), and what it cannot take back is reconcile's.
 */
export async function createSchedule(deps: Deps, caller: Caller, input: CreateScheduleInput): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  const cronExpression = validateCronExpression(input.cronExpression);
  validatePromptTemplate(input.promptTemplate);
  const em = deps.orm.em.fork();
  if (input.projectId) await findProject(em, caller.workspaceId, input.projectId);
  if (input.brandKitId) await findBrandKit(em, caller.workspaceId, input.brandKitId);
  const schedule = em.create(
    Schedule,
    {
      workspaceId: caller.workspaceId,
      name: input.name,
      cronExpression,
      promptTemplate: input.promptTemplate ?? null,
      projectId: input.projectId ?? null,
      brandKitId: input.brandKitId ?? null,
      isActive: true,
      lastRunAt: null,
      lastRunError: null,
    },
    { persist: false },
  );
  const deadline = temporalDeadline();
  try {
    await inTemporal(deps.temporal, 'accept the schedule change', () => createTemporalSchedule(deps.temporal, schedule, deps.taskQueue), deadline);
    await em.insert(schedule);
  } catch (error) {
    // Also when Temporal failed to answer: it may have created the schedule and answered too late.
    await inTemporal(deps.temporal, 'take the schedule back', () => deleteTemporalSchedule(deps.temporal, schedule.id), deadline).catch((undo: unknown) =>
      deps.logger.warn({ err: undo, scheduleId: schedule.id }, 'orphan schedule left for reconcile'),
    );
    throw error;
  }
  return viewOf(schedule);
}
