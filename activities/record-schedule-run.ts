import { Schedule } from '../src/data/entities/schedule.ts';
import type { ActivityDeps } from './index.ts';

/** Keeps the outcome of the last run on the schedule: the error, or none after a success. */
export async function recordScheduleRun(deps: ActivityDeps, input: { scheduleId: string; error: string | null }): Promise<void> {
  await deps.orm.em.fork().nativeUpdate(Schedule, { id: input.scheduleId }, { lastRunError: input.error });
}
