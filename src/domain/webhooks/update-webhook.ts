import type { Webhook } from '../../adapters/database/entities/webhook.ts';
import type { Caller } from '../caller.ts';
import { requireFeature } from '../workspaces/plans.ts';
import type { Deps } from '../deps.ts';
import { findWebhook } from '../find-in-workspace.ts';
import { normalizeEvents } from './webhook-input.ts';

/** Any subset of url, events, isActive, and (extension) a new secret, or null for unsigned deliveries. */
export async function updateWebhook(
  deps: Deps,
  caller: Caller,
  id: string,
  input: { url?: string; events?: string; isActive?: boolean; secret?: string | null },
): Promise<Webhook> {
  requireFeature(caller.plan, 'webhooks');
  return deps.orm.em.fork().transactional(async (em) => {
    const webhook = await findWebhook(em, caller.workspaceId, id);
    if (input.url !== undefined) webhook.url = input.url;
    if (input.events !== undefined) webhook.events = normalizeEvents(input.events);
    if (input.isActive !== undefined) webhook.isActive = input.isActive;
    if (input.secret !== undefined) webhook.secretSealed = input.secret === null ? null : deps.secrets.seal(input.secret);
    return webhook;
  });
}
