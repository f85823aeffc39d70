import type { Client } from '@temporalio/client';
import type { Logger } from '../../logger.ts';
import { searchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { startWorkflow } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { cleanUpOrphanedObjects } from '../../../workflows/clean-up-orphaned-objects.ts';
import type { OrphanBatch } from './orphaned-objects.ts';

// Apart from the orphan records themselves (orphaned-objects.ts), which activities write too: only the api's
// deletes and replacements start a cleanup, so the workflow is imported where it is started and nowhere else.

/**
 * Starts the cleanup workflow for a committed batch, tagged with its workspace (and project) for the Temporal UI.
 * If Temporal cannot be reached the rows stay and the storage sweep deletes the objects later, so the caller's
 * request still succeeds.
 */
export async function startStorageCleanup(deps: { temporal: Client; taskQueue: string; logger: Logger }, batch: OrphanBatch | null): Promise<void> {
  if (!batch) return;
  try {
    await startWorkflow(
      deps.temporal,
      cleanUpOrphanedObjects,
      {
        workflowId: workflowIds.storageCleanup(batch.batchId),
        taskQueue: deps.taskQueue,
        args: [{ batchId: batch.batchId, deleteAfter: batch.deleteAfter.toISOString() }],
        staticSummary: `Delete ${batch.count} stored object(s): ${batch.reason}`,
        typedSearchAttributes: [
          { key: searchAttributes.workspaceId, value: batch.workspaceId },
          ...(batch.projectId ? [{ key: searchAttributes.projectId, value: batch.projectId }] : []),
        ],
      },
      'the storage cleanup',
    );
  } catch (error) {
    deps.logger.warn({ err: error, batchId: batch.batchId }, 'storage cleanup not started; the storage sweep will delete these objects');
  }
}
