// What reconcileSchedules answers: importing nothing of ours.

/** What was repaired and what could not be. */
export type ReconcileReport = {
  checked: number;
  created: string[];
  updated: string[];
  deleted: string[];
  /** Left for the next run: changed within the grace window (a change may be under way). */
  skipped: string[];
  /** Temporal refused the repair; the others were repaired all the same. */
  failed: Array<{ scheduleId: string; error: string }>;
};
