import type { Schedule } from '../../adapters/database/entities/schedule.ts';
import { nextCronTimes } from './cron-expression.ts';

export type ScheduleView = { schedule: Schedule; nextRunAt: Date | null };

/**
 * A schedule with its next run, from the database alone: the next time its cron matches (UTC, by Temporal's rules,
 * see nextCronTimes), none while paused. The last run is on the row (written by the run itself). Asking Temporal
 * instead cost a page of 50 a visibility query several times longer than the whole `GET /projects`, and made reads
 * fail while Temporal was down.
 */
export function viewOf(schedule: Schedule, now = new Date()): ScheduleView {
  return { schedule, nextRunAt: schedule.isActive ? (nextCronTimes(schedule.cronExpression, now, 1)[0] ?? null) : null };
}
