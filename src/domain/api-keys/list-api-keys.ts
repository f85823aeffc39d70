import { ApiKey } from '../../adapters/database/entities/api-key.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';
import type { LastUsedTracker } from './last-used-tracker.ts';

/** On every plan through the dashboard; the public API gates it (routes/api-keys.ts). */
export async function listApiKeys(deps: Deps & { lastUsed: LastUsedTracker }, caller: Caller, query: PageRequest): Promise<Page<ApiKey>> {
  const rows = await deps.orm.em.fork().find(ApiKey, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  for (const row of rows) row.lastUsedAt = deps.lastUsed.latest(row.id, row.lastUsedAt);
  return toPage(rows, query);
}
