import type { Activities } from '../../activities/index.ts';

// What reconcileSchedules answers: importing nothing of ours at run time.

/** What was repaired and what could not be. */
export type ReconcileReport = Awaited<ReturnType<Activities['repairScheduleDrift']>>;
