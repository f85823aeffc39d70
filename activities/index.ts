import type { Database } from '../src/data/orm.ts';
import type { Logger } from '../src/logger.ts';
import type { ObjectStorage } from '../src/storage/object-storage.ts';
import { deleteOrphanedObjects, type DeleteOrphansInput } from './delete-orphaned-objects.ts';

export type ActivityDeps = { orm: Database; storage: ObjectStorage; logger: Logger };

/** The worker injects real clients; tests inject what they need (e.g. a storage that fails on purpose). */
export function createActivities(deps: ActivityDeps) {
  return {
    deleteOrphanedObjects: (input: DeleteOrphansInput) => deleteOrphanedObjects(deps, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
