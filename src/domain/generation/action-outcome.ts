import { WorkflowFailedError } from '@temporalio/client';
import type { Post } from '../../data/entities/post.ts';
import { AppError } from '../../errors/app-error.ts';

/** What an action that runs a workflow answers: its outcome, or the post as it is while the workflow goes on. */
export type ActionOutcome<T> = { state: 'completed'; post: Post; result: T } | { state: 'running'; post: Post };

/** A workflow that failed for good becomes a 422 with the reason the workflow gave (e.g. content moderation). */
export async function failuresAsProblems<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const reason = error.cause?.message ?? error.message;
    throw new AppError('generation-failed', `${action} failed: ${reason}`);
  }
}
