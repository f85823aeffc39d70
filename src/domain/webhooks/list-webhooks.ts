import { Webhook } from '../../adapters/database/entities/webhook.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';

export async function listWebhooks(deps: Deps, caller: Caller, query: PageRequest): Promise<Page<Webhook>> {
  requireFeature(caller.plan, 'webhooks');
  const rows = await deps.orm.em.fork().find(Webhook, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
