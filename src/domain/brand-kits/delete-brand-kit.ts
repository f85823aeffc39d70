import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findBrandKit } from '../find-in-workspace.ts';

export async function deleteBrandKit(deps: Deps, caller: Caller, id: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    em.remove(await findBrandKit(em, caller.workspaceId, id));
  });
}
