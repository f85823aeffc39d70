import type { EntityManager } from '@mikro-orm/postgresql';
import type { Project } from '../../adapters/database/entities/project.ts';
import type { Caller } from '../caller.ts';
import { recordOrphanedObjects, type OrphanBatch } from '../storage/orphaned-objects.ts';
import { findProject } from '../find-in-workspace.ts';

/**
 * Points the project at a new cover (`key`; null for none) under the project's lock, and records the cover it had
 * as orphaned in the same transaction (`em`): the old image leaves storage once nothing refers to it, never before.
 * The caller starts the cleanup of the returned batch after the commit.
 */
export async function swapProjectCover(
  em: EntityManager,
  caller: Caller,
  id: string,
  cover: { key: string | null; reason: string },
): Promise<{ project: Project; replaced: OrphanBatch | null }> {
  const project = await findProject(em, caller.workspaceId, id, { lock: true });
  const replaced = await recordOrphanedObjects(em, { keys: [project.coverKey], reason: cover.reason, workspaceId: caller.workspaceId, projectId: id });
  project.coverKey = cover.key;
  return { project, replaced };
}
