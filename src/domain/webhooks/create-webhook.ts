import { Webhook } from '../../data/entities/webhook.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { normalizeEvents } from './webhook-input.ts';

/** A new, active webhook; its secret (write-only) is sealed at rest because every delivery needs it to sign. */
export async function createWebhook(deps: Deps, caller: Caller, input: { url: string; events: string; secret?: string }): Promise<Webhook> {
  requireFeature(caller.plan, 'webhooks');
  const events = normalizeEvents(input.events);
  return deps.orm.em.fork().transactional((em) =>
    Promise.resolve(
      em.create(Webhook, {
        workspaceId: caller.workspaceId,
        url: input.url,
        events,
        secretSealed: input.secret ? deps.secrets.seal(input.secret) : null,
        isActive: true,
      }),
    ),
  );
}
