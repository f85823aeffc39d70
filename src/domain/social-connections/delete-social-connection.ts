import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSocialConnection } from './find-social-connection.ts';

/** Forgets the account and its credentials. Publish targets keep their history; pending ones to it will fail. */
export async function deleteSocialConnection(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findSocialConnection(em, caller.workspaceId, id));
  });
}
