import { Webhook } from '../../adapters/database/entities/webhook.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { createOnce } from '../idempotency/request-effects.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireFeature, requireQuota } from '../workspaces/plans.ts';
import { normalizeEvents } from './webhook-input.ts';

/**
 * A new, active webhook; its secret (write-only) is sealed at rest because every delivery needs it to sign.
 * `requestKey` names the request's Idempotency-Key (requestFingerprint): a retry gets the webhook the first send created.
 */
export async function createWebhook(
  deps: Deps,
  caller: Caller,
  input: { url: string; events: string; secret?: string },
  requestKey?: string,
): Promise<Webhook> {
  requireFeature(caller.plan, 'webhooks');
  const events = normalizeEvents(input.events);
  return deps.orm.em.fork().transactional(async (em) => {
    // Counted under the workspace's lock, so two creates at once cannot both take the last place.
    const { plan } = await lockWorkspace(em, caller.workspaceId);
    const find = (id: string) => em.findOne(Webhook, { id, workspaceId: caller.workspaceId });
    return createOnce(em, caller.workspaceId, requestKey, { type: 'webhook', find }, async () => {
      requireFeature(plan, 'webhooks');
      requireQuota(plan, 'webhooks', await em.count(Webhook, { workspaceId: caller.workspaceId }));
      return em.create(Webhook, {
        workspaceId: caller.workspaceId,
        url: input.url,
        events,
        secretSealed: input.secret ? deps.secrets.seal(input.secret) : null,
        isActive: true,
      });
    });
  });
}
