import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findApiKey } from '../find-in-workspace.ts';
import { requireKeyWithinCaller } from './require-key-within-caller.ts';

/**
 * The key stops working at once: authentication looks keys up on every request, nothing caches them. On every plan
 * through the dashboard (a leaked key must be revocable after a downgrade); the public API gates it (routes/api-keys.ts).
 * Only a key with no wider scope and no longer life than the caller's own: a short-lived key cannot take the owner's
 * permanent key away.
 */
export async function deleteApiKey(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    const found = await findApiKey(em, caller.workspaceId, id);
    await requireKeyWithinCaller(em, caller, found, 'delete');
    em.remove(found);
  });
}
