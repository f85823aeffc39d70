import type { ScheduleView } from '../../domain/schedules/schedule-view.ts';
import type { Schemas } from '../schemas.ts';

export function presentSchedule({ schedule, nextRunAt }: ScheduleView): Schemas['Schedule'] {
  return {
    id: schedule.id,
    name: schedule.name,
    cronExpression: schedule.cronExpression,
    isActive: schedule.isActive,
    promptTemplate: schedule.promptTemplate ?? null,
    projectId: schedule.projectId ?? null,
    brandKitId: schedule.brandKitId ?? null,
    lastRunAt: schedule.lastRunAt?.toISOString() ?? null,
    nextRunAt: nextRunAt?.toISOString() ?? null,
    lastRunError: schedule.lastRunError ?? null,
    createdAt: schedule.createdAt.toISOString(),
  };
}

export function presentScheduleListItem(view: ScheduleView): Schemas['ScheduleListItem'] {
  const { id, name, cronExpression, isActive, promptTemplate, nextRunAt } = presentSchedule(view);
  return { id, name, cronExpression, isActive, promptTemplate, nextRunAt };
}

export function presentCreatedSchedule(view: ScheduleView): Schemas['CreateScheduleResponse'] {
  const { id, name, cronExpression, isActive, nextRunAt } = presentSchedule(view);
  return { id, name, cronExpression, isActive, nextRunAt };
}
