import type { EntityManager } from '@mikro-orm/postgresql';
import { Schedule } from '../../adapters/database/entities/schedule.ts';

/**
 * Keeps the outcome of the last run on the schedule (one statement): when it ran, and the error or none after a
 * success. "When" is the firing the run belongs to (see the activity recordScheduleRunAtItsFiring), or now for a run that
 * has none.
 */
export async function recordScheduleRun(em: EntityManager, input: { scheduleId: string; firing: Date | undefined; error: string | null }): Promise<void> {
  await em.nativeUpdate(Schedule, { id: input.scheduleId }, { lastRunAt: input.firing ?? new Date(), lastRunError: input.error });
}
