import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { Post } from '../../data/entities/post.ts';
import { AppError } from '../../errors/app-error.ts';
import { failureTypes } from '../../temporal/failure-types.ts';

/** What an action that runs a workflow answers: its outcome, or the post as it is while the workflow goes on. */
export type ActionOutcome<T> = { state: 'completed'; post: Post; result: T } | { state: 'running'; post: Post };

// How a workflow's failure reads to the client who waited for it. The image work itself failing for good (the
// provider refused, the picture could not be composed) is a 422 with the reason; the post deleted meanwhile is a
// 404; anything else (a bug in our own bookkeeping) stays an error of ours, a 500 that is logged.
const imageWork = new Set(['generatePostImage', 'renderPostImage']);

export async function failuresAsProblems<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const reason = error.cause?.message ?? error.message;
    const failures = causes(error);
    if (failures.some((failure) => failure instanceof ApplicationFailure && failure.type === failureTypes.postDeleted)) throw new AppError('not-found', reason);
    const imageFailed =
      (error.cause instanceof ApplicationFailure && error.cause.type === failureTypes.generationFailed) ||
      (error.cause instanceof ActivityFailure && imageWork.has(error.cause.activityType));
    if (imageFailed) throw new AppError('generation-failed', `${action} failed: ${reason}`);
    throw error;
  }
}

function causes(error: Error): Error[] {
  const chain: Error[] = [];
  for (let current = error.cause; current instanceof Error && chain.length < 5; current = current.cause) chain.push(current);
  return chain;
}
