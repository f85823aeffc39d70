import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { startStorageCleanup } from '../storage/start-storage-cleanup.ts';
import { swapProjectCover } from './swap-project-cover.ts';

/** Removes the cover (a project without one is left as it is); the image leaves storage durably. */
export async function deleteProjectCover(deps: Deps, caller: Caller, id: string): Promise<void> {
  const { replaced } = await deps.orm.em.fork().transactional((em) => swapProjectCover(em, caller, id, { key: null, reason: 'project cover deleted' }));
  await startStorageCleanup(deps, replaced);
}
