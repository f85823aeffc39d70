import { Schedule } from '../../data/entities/schedule.ts';
import { findBrandKit } from '../brand-kits/find-brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findProject } from '../projects/find-project.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { validateCronExpression } from './cron-expression.ts';
import { inTemporal } from '../../temporal/workflow-gateway.ts';
import { validatePromptTemplate } from './prompt-template.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';
import { createTemporalSchedule, deleteTemporalSchedule } from './temporal-schedule.ts';

export type CreateScheduleInput = { name: string; cronExpression: string; promptTemplate?: string; projectId?: string; brandKitId?: string };

/**
 * A new active schedule: its row and its Temporal Schedule are made together (the Temporal Schedule inside the
 * transaction, removed again should the commit fail), so neither exists without the other.
 */
export async function createSchedule(deps: Deps, caller: Caller, input: CreateScheduleInput): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  const cronExpression = validateCronExpression(input.cronExpression);
  validatePromptTemplate(input.promptTemplate);
  let temporalCreated: string | undefined;
  let schedule: Schedule;
  try {
    schedule = await deps.orm.em.fork().transactional(async (em) => {
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
      });
      await em.flush();
      // Noted before the call: Temporal may create it and answer too late; the undo below copes with either.
      temporalCreated = row.id;
      await inTemporal(deps.temporal, 'accept the schedule change', () => createTemporalSchedule(deps.temporal, row, deps.taskQueue));
      return row;
    });
  } catch (error) {
    // The commit failed after Temporal accepted: take the Temporal Schedule back (the reconcile step would too).
    if (temporalCreated) {
      const id = temporalCreated;
      await inTemporal(deps.temporal, 'take the schedule back', () => deleteTemporalSchedule(deps.temporal, id)).catch((undo: unknown) =>
        deps.logger.warn({ err: undo }, 'orphan schedule left for reconcile'),
      );
    }
    throw error;
  }
  return viewOf(schedule);
}
