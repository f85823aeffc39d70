import type { Schedule } from '../../data/entities/schedule.ts';
import type { Deps } from '../deps.ts';
import { inTemporal } from '../../temporal/in-temporal.ts';
import { listedRuns, scheduleRuns, type ScheduleRuns } from './temporal-schedule.ts';

export type ScheduleView = { schedule: Schedule } & ScheduleRuns;

/**
 * Schedules of one workspace with their next and last run times as Temporal sees them (what will happen). A page
 * reads them with one visibility query and describes only the schedules it could not vouch for; describing fifty
 * schedules one by one costs the server a query to each schedule's own workflow.
 */
export function withRuns(deps: Deps, schedules: Schedule[]): Promise<ScheduleView[]> {
  return inTemporal(deps.temporal, "report the schedules' runs", async () => {
    const [first] = schedules;
    const listed = schedules.length > 1 && first ? await listedRuns(deps.temporal, first.workspaceId, schedules, new Date()) : new Map<string, ScheduleRuns>();
    return Promise.all(
      schedules.map(async (schedule) => ({ schedule, ...(listed.get(schedule.id) ?? (await scheduleRuns(deps.temporal, schedule.id))) })),
    );
  });
}

/**
 * The view of a schedule whose change has just been committed. The change is done, so the answer must not be a 503
 * (a client would send it again, and a create would happen twice): run times Temporal cannot report right now are
 * left null, and the next read shows them.
 */
export async function viewAfterChange(deps: Deps, schedule: Schedule): Promise<ScheduleView> {
  try {
    const [view] = await withRuns(deps, [schedule]);
    return view!;
  } catch (error) {
    deps.logger.warn({ err: error, scheduleId: schedule.id }, 'schedule changed; its run times could not be read');
    return { schedule, nextRunAt: null, lastRunAt: null };
  }
}
