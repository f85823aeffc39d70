// What starting generateVideo takes and answers: importing nothing of ours at run time.

export type GenerateVideoInput = { jobId: string };
export type GeneratedVideo = { videoKey: string; notes: string[] };
