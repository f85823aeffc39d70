import { Webhook } from '../../data/entities/webhook.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { normalizeEvents } from './webhook-input.ts';

// An event's first attempts to every webhook run in one activity round, with a budget of a few request timeouts
// (workflows/activity-options.ts): this many slow receivers, 32 at a time, stay well within it.
export const maxWebhooksPerWorkspace = 50;

/** A new, active webhook; its secret (write-only) is sealed at rest because every delivery needs it to sign. */
export async function createWebhook(deps: Deps, caller: Caller, input: { url: string; events: string; secret?: string }): Promise<Webhook> {
  requireFeature(caller.plan, 'webhooks');
  const events = normalizeEvents(input.events);
  return deps.orm.em.fork().transactional(async (em) => {
    // Counted under the workspace's lock, so two creates at once cannot both take the last place.
    await lockWorkspace(em, caller.workspaceId);
    const count = await em.count(Webhook, { workspaceId: caller.workspaceId });
    if (count >= maxWebhooksPerWorkspace) {
      throw new AppError('conflict', `This workspace has ${count} webhooks, the most it may have (${maxWebhooksPerWorkspace}); delete one first.`);
    }
    return em.create(Webhook, {
      workspaceId: caller.workspaceId,
      url: input.url,
      events,
      secretSealed: input.secret ? deps.secrets.seal(input.secret) : null,
      isActive: true,
    });
  });
}
