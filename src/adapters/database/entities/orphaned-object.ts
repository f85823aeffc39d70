import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';

// A stored object that nothing references any more and that must be deleted from object storage. Rows are written
// in the same transaction as the change that orphans the object (or, for uploads, before the bytes are stored), so
// a crash at any point leaves a row behind, and the storage cleanup workflow or its sweeper deletes the object.
export const OrphanedObject = defineEntity({
  name: 'OrphanedObject',
  tableName: 'orphaned_objects',
  properties: {
    ...primaryKey,
    /** Rows recorded together are cleaned up by one workflow run. */
    batchId: p.uuid().index(),
    objectKey: p.text().unique(),
    /** Why the object was orphaned, for operators (e.g. "project deleted"). */
    reason: p.string().length(100),
    /** Not deleted before this time: gives an upload in progress time to commit. */
    deleteAfter: p.datetime().index(),
    ...createdAt,
  },
});
export type OrphanedObject = InferEntity<typeof OrphanedObject>;
