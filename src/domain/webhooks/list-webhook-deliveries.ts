import { WebhookDelivery } from '../../adapters/database/entities/webhook-delivery.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';
import { findWebhook } from '../find-in-workspace.ts';

/** The webhook's delivery log, newest attempt first. */
export async function listWebhookDeliveries(deps: Deps, caller: Caller, webhookId: string, query: PageRequest): Promise<Page<WebhookDelivery>> {
  requireFeature(caller.plan, 'webhooks');
  const em = deps.orm.em.fork();
  await findWebhook(em, caller.workspaceId, webhookId);
  const rows = await em.find(WebhookDelivery, { webhookId }, { orderBy: { attemptedAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
