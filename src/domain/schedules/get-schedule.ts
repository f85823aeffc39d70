import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { findSchedule } from '../find-in-workspace.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';

export async function getSchedule(deps: Deps, caller: Caller, id: string): Promise<ScheduleView> {
  requireFeature(caller.plan, 'schedules');
  return viewOf(await findSchedule(deps.orm.em.fork(), caller.workspaceId, id));
}
