import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { findApiKey } from './find-api-key.ts';

/** The key stops working at once: authentication looks keys up on every request, nothing caches them. */
export async function deleteApiKey(deps: Deps, caller: Caller, id: string): Promise<void> {
  requireFeature(caller.plan, 'apiKeys');
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findApiKey(em, caller.workspaceId, id));
  });
}
