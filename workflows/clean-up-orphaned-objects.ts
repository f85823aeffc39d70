import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { storageCleanup } from './contracts/activity-options.ts';
import type { CleanUpInput, CleanUpResult, SweepInput } from './contracts/clean-up-orphaned-objects.ts';

// Retried for about seven hours, then left to the storage sweep (see storageCleanup).
const { deleteOrphanedObjects } = proxyActivities<Activities>(storageCleanup);

// A page is one activity (three history events). A project deleted with a hundred thousand images is a thousand
// pages: past this many in one run (or when Temporal suggests it sooner), the run continues as new with its count,
// so a history never grows without bound.
export const pagesPerRun = 100;

/** Deletes the objects recorded in one orphan batch, once their grace period has passed. */
export async function cleanUpOrphanedObjects({ batchId, deleteAfter, deletedBefore = 0 }: CleanUpInput): Promise<CleanUpResult> {
  const wait = Date.parse(deleteAfter) - Date.now();
  if (wait > 0) await sleep(wait);
  return deleteAll({ batchId }, deletedBefore, (deleted) => continueAsNew<typeof cleanUpOrphanedObjects>({ batchId, deleteAfter, deletedBefore: deleted }));
}

/** Run by the `storage-sweep` Temporal Schedule: deletes every overdue orphan, whoever forgot to. */
export async function sweepOrphanedObjects({ deletedBefore = 0 }: SweepInput = {}): Promise<CleanUpResult> {
  return deleteAll({ due: true }, deletedBefore, (deleted) => continueAsNew<typeof sweepOrphanedObjects>({ deletedBefore: deleted }));
}

async function deleteAll(
  input: Parameters<Activities['deleteOrphanedObjects']>[0],
  deletedBefore: number,
  continueWith: (deleted: number) => Promise<never>,
): Promise<CleanUpResult> {
  let deleted = deletedBefore;
  for (let page = 1; ; page += 1) {
    const result = await deleteOrphanedObjects(input);
    deleted += result.deleted;
    if (!result.more) return { deleted };
    if (page >= pagesPerRun || workflowInfo().continueAsNewSuggested) return continueWith(deleted);
  }
}
