// What starting applyWorkspacePlan takes and answers: importing nothing of ours at run time.

export type ApplyWorkspacePlanInput = { workspaceId: string };
export type ApplyWorkspacePlanResult = { schedules: number; deliveriesStopped: number };
