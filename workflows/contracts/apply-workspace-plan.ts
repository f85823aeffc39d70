// What starting applyWorkspacePlan takes and answers: importing nothing of ours at run time.

export type ApplyWorkspacePlanInput = { workspaceId: string };
/** `failed`: the schedules Temporal refused to change (the others were brought in line all the same). */
export type ApplyWorkspacePlanResult = { schedules: number; failed: string[]; deliveriesStopped: number };
