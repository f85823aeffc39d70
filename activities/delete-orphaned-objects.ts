import { log } from '@temporalio/activity';
import { LockMode } from '@mikro-orm/postgresql';
import { OrphanedObject } from '../src/data/entities/orphaned-object.ts';
import type { ActivityDeps } from './index.ts';

const batchSize = 100;

export type DeleteOrphansInput =
  /** Every object of one batch: its workflow has already waited out the grace period. */
  | { batchId: string }
  /** Every object whose grace period is over, whatever its batch (the sweep). */
  | { due: true };

/**
 * Deletes orphaned objects from storage, then forgets them; returns how many, and whether more may remain. Rows are
 * locked while their objects are deleted: a concurrent sweep skips them, and an upload committing at that moment
 * waits and then finds its claim gone (see upload-project-cover.ts). Idempotent: a retry finishes the job.
 */
export async function deleteOrphanedObjects(deps: ActivityDeps, input: DeleteOrphansInput): Promise<{ deleted: number; more: boolean }> {
  return deps.orm.em.fork().transactional(async (em) => {
    const rows = await em.find(
      OrphanedObject,
      'batchId' in input ? { batchId: input.batchId } : { deleteAfter: { $lte: new Date() } },
      { orderBy: { deleteAfter: 'asc' }, limit: batchSize, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const row of rows) await deps.storage.delete(row.objectKey);
    if (rows.length > 0) {
      await em.nativeDelete(OrphanedObject, { id: { $in: rows.map((row) => row.id) } });
      log.info('orphaned objects deleted from storage', { ...input, deleted: rows.length });
    }
    return { deleted: rows.length, more: rows.length === batchSize };
  });
}
