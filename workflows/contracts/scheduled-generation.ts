import type { GenerationResult } from './generate-post.ts';

// What a schedule's run of scheduledGeneration takes and answers: importing nothing of ours at run time.

export type ScheduledGenerationInput = { scheduleId: string };
export type ScheduledGenerationResult = { postId: string } & GenerationResult;
