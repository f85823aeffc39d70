import { log } from '@temporalio/activity';
import { purgeOrphanedObjects, type DeleteOrphansInput } from '../src/domain/storage/purge-orphaned-objects.ts';
import type { ActivityDeps } from './index.ts';

/** One page of a cleanup or of the sweep, in a transaction of its own (retried by its workflow, bounded). */
export async function deleteOrphanedObjects(deps: ActivityDeps, input: DeleteOrphansInput): Promise<{ deleted: number; more: boolean }> {
  const result = await deps.orm.em.fork().transactional((em) => purgeOrphanedObjects(em, deps.storage, input));
  if (result.deleted > 0) log.info('orphaned objects deleted from storage', { ...input, deleted: result.deleted });
  return result;
}
