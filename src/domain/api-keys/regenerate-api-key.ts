import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { generateApiKeySecret } from './api-key-secret.ts';
import { findApiKey } from '../find-in-workspace.ts';

/** Replaces the secret of a key; the old secret fails with 401 from the moment this commits. */
export async function regenerateApiKey(deps: Deps, caller: Caller, id: string): Promise<{ id: string; key: string; prefix: string }> {
  requireFeature(caller.plan, 'apiKeys');
  return deps.orm.em.fork().transactional(async (em) => {
    const apiKey = await findApiKey(em, caller.workspaceId, id);
    const secret = generateApiKeySecret();
    apiKey.keyHash = secret.hash;
    apiKey.keyPrefix = secret.prefix;
    return { id: apiKey.id, key: secret.key, prefix: secret.prefix };
  });
}
