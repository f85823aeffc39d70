import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findApiKey } from '../find-in-workspace.ts';

/**
 * The key stops working at once: authentication looks keys up on every request, nothing caches them. On every plan
 * through the dashboard (a leaked key must be revocable after a downgrade); the public API gates it (routes/api-keys.ts).
 */
export async function deleteApiKey(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findApiKey(em, caller.workspaceId, id));
  });
}
