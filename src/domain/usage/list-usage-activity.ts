import { UsageActivity } from '../../adapters/database/entities/usage-activity.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';

export async function listUsageActivity(deps: Deps, caller: Caller, query: PageRequest): Promise<Page<UsageActivity>> {
  const rows = await deps.orm.em
    .fork()
    .find(UsageActivity, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
