import { Schedule } from '../../adapters/database/entities/schedule.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';
import { viewOf, type ScheduleView } from './schedule-view.ts';

export async function listSchedules(deps: Deps, caller: Caller, query: PageRequest): Promise<Page<ScheduleView>> {
  requireFeature(caller.plan, 'schedules');
  const rows = await deps.orm.em
    .fork()
    .find(Schedule, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  const page = toPage(rows, query);
  const now = new Date();
  return { ...page, items: page.items.map((schedule) => viewOf(schedule, now)) };
}
