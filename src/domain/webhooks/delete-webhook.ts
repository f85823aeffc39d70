import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { findWebhook } from '../find-in-workspace.ts';

/** Deletes the webhook and its delivery log; deliveries still retrying find it gone and stop. */
export async function deleteWebhook(deps: Deps, caller: Caller, id: string): Promise<void> {
  requireFeature(caller.plan, 'webhooks');
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findWebhook(em, caller.workspaceId, id));
  });
}
