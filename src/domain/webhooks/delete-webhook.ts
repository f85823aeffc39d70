import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findWebhook } from './find-webhook.ts';

/** Deletes the webhook and its delivery log; deliveries still retrying find it gone and stop. */
// Also on Starter: a workspace downgraded from Growth can still see and remove what it set up there.
export async function deleteWebhook(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findWebhook(em, caller.workspaceId, id));
  });
}
