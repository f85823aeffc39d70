import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../adapters/database/new-id.ts';

export type OrphanBatch = { batchId: string; deleteAfter: Date; reason: string; count: number; workspaceId: string; projectId?: string | undefined };

export type Orphans = {
  keys: Array<string | null | undefined>;
  /** Why the objects were orphaned, for operators (e.g. "project deleted"). */
  reason: string;
  workspaceId: string;
  projectId?: string | undefined;
  /** Not deleted before this time (default: now). */
  deleteAfter?: Date;
};

/**
 * Records objects that must leave storage, in the caller's transaction, so the record commits (or not) with the
 * change that orphans them. Returns null when there is nothing to record.
 */
export async function recordOrphanedObjects(em: EntityManager, orphans: Orphans): Promise<OrphanBatch | null> {
  const objectKeys = orphans.keys.filter((key): key is string => Boolean(key));
  if (objectKeys.length === 0) return null;
  const batchId = newId();
  const deleteAfter = orphans.deleteAfter ?? new Date();
  await insertOrphans(em, { batchId, keys: objectKeys, reason: orphans.reason, deleteAfter });
  return { batchId, deleteAfter, reason: orphans.reason, count: objectKeys.length, workspaceId: orphans.workspaceId, projectId: orphans.projectId };
}

/**
 * For bytes about to be stored: records the key as orphaned with a grace period *before* the bytes exist, so a
 * crash before the referencing row commits leaves a record for the sweep instead of a leaked object. Idempotent:
 * a retried activity reserves the same key again without harm.
 */
export async function reserveObjectKey(em: EntityManager, reservation: { key: string; reason: string; graceMs: number }): Promise<void> {
  await insertOrphans(em, { batchId: newId(), keys: [reservation.key], reason: reservation.reason, deleteAfter: new Date(Date.now() + reservation.graceMs) });
}

// Rows per statement: five parameters each, well within PostgreSQL's 65,535 per statement.
const rowsPerInsert = 1_000;

/**
 * One row per key. A key already on the list stays as it is: a retried reservation, or a key that another change
 * orphaned at the same moment (a post deleted while its project is), whose batch deletes it; a second row would
 * break the key's uniqueness and fail the caller's request.
 */
async function insertOrphans(em: EntityManager, batch: { batchId: string; keys: string[]; reason: string; deleteAfter: Date }): Promise<void> {
  for (let start = 0; start < batch.keys.length; start += rowsPerInsert) {
    const keys = batch.keys.slice(start, start + rowsPerInsert);
    await em.execute(
      `insert into orphaned_objects (id, batch_id, object_key, reason, delete_after, created_at)
       values ${keys.map(() => '(?, ?, ?, ?, ?, now())').join(', ')} on conflict (object_key) do nothing`,
      keys.flatMap((key) => [newId(), batch.batchId, key, batch.reason, batch.deleteAfter.toISOString()]),
    );
  }
}

/**
 * In the transaction that starts referencing a reserved key: takes it off the orphan list. False when the sweep
 * already took it (the grace period ran out), in which case the bytes are gone and the caller must not use them.
 */
export async function claimObjectKey(em: EntityManager, key: string): Promise<boolean> {
  const result = await em.execute<{ affectedRows: number }>('delete from orphaned_objects where object_key = ?', [key], 'run');
  return result.affectedRows > 0;
}
