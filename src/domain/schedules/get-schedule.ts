import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSchedule } from './find-schedule.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';

// Also on Starter: a workspace downgraded from Growth can still see and remove what it set up there.
export async function getSchedule(deps: Deps, caller: Caller, id: string): Promise<ScheduleView> {
  return viewOf(await findSchedule(deps.orm.em.fork(), caller.workspaceId, id));
}
