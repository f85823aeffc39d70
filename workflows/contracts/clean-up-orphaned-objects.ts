// What starting cleanUpOrphanedObjects and sweepOrphanedObjects takes and answers: importing nothing of ours at run
// time.

/** `deletedBefore`: what the runs before this one (continued as new) deleted. */
export type CleanUpInput = { batchId: string; deleteAfter: string; deletedBefore?: number };
export type SweepInput = { deletedBefore?: number };
export type CleanUpResult = { deleted: number };
