import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { OrphanedObject } from '../../adapters/database/entities/orphaned-object.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';

const batchSize = 100;

export type DeleteOrphansInput =
  /** Every object of one batch: its workflow has already waited out the grace period. */
  | { batchId: string }
  /** Every object whose grace period is over, whatever its batch (the sweep). */
  | { due: true };

/**
 * Deletes a page of orphaned objects from storage, then forgets them, in the caller's transaction; returns how many,
 * and whether more may remain. Rows are locked while their objects are deleted: a concurrent sweep skips them, and an
 * upload committing at that moment waits and then finds its claim gone (see upload-project-cover.ts). Idempotent: a
 * retry finishes the job.
 */
export async function purgeOrphanedObjects(em: EntityManager, storage: ObjectStorage, input: DeleteOrphansInput): Promise<{ deleted: number; more: boolean }> {
  const rows = await em.find(OrphanedObject, 'batchId' in input ? { batchId: input.batchId } : { deleteAfter: { $lte: new Date() } }, {
    orderBy: { deleteAfter: 'asc' },
    limit: batchSize,
    lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
  });
  for (const row of rows) await storage.delete(row.objectKey);
  if (rows.length > 0) await em.nativeDelete(OrphanedObject, { id: { $in: rows.map((row) => row.id) } });
  return { deleted: rows.length, more: rows.length === batchSize };
}
