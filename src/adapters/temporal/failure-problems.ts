import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { AppError } from '../../common/errors/app-error.ts';
import { failureReasonOf, failureReasonOfType } from './failure-reasons.ts';
import { failureTypes, type FailureType } from './failure-types.ts';
import { causesOf } from '../../common/errors/caught.ts';

/** The work a request waited for, in words: its failure reads "<name> failed: <reason>" (e.g. "Generation"). */
export type WorkName = string;

// How a failure of work a request waited for reads to the client, by failure type. What was deleted meanwhile is a
// 404 in its own words; the image work failing for good (the provider refused, there is nothing to compose) is a 422
// with the reason, as failure-reasons.ts words it. Any other type is a failure of ours (a bug in our own
// bookkeeping): it stays an error, a 500 that is logged.
const problems: Partial<Record<FailureType, (reason: string, work: WorkName) => AppError>> = {
  [failureTypes.postDeleted]: (reason) => new AppError('not-found', reason),
  [failureTypes.connectionNotFound]: (reason) => new AppError('not-found', reason),
  [failureTypes.generationFailed]: (reason, work) => new AppError('generation-failed', `${work} failed: ${reason}`),
  [failureTypes.noArtwork]: (reason, work) => new AppError('generation-failed', `${work} failed: ${reason}`),
};

/**
 * A workflow's failure as the client who waited for it hears it: a failure type of the table, or an activity that
 * ran out of attempts (only work at the network edge has a bound; work on our own database retries while it is
 * down and fails at once otherwise), which is the work itself failing: 422, in a sentence of ours (what the
 * activity said is in the worker's log). Anything else is returned as it is.
 */
export function workflowFailureAsProblem(error: unknown, work: WorkName): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  const known = tableProblem(error, work);
  if (known) return known;
  const gaveUp = error.cause instanceof ActivityFailure && error.cause.retryState === 'MAXIMUM_ATTEMPTS_REACHED';
  return gaveUp ? new AppError('generation-failed', `${work} failed: ${failureReasonOf(error.cause)}`) : error;
}

/**
 * An update's failure as its caller hears it: a failure type of the table, or else a refusal of the workflow (its
 * validator, e.g. a publication already under way): 409 naming `subject` ("Post <id>"). Temporal's own errors are
 * returned as they are.
 */
export function updateFailureAsProblem(error: unknown, subject: string): unknown {
  if (!(error instanceof WorkflowUpdateFailedError)) return error;
  return tableProblem(error, subject) ?? new AppError('conflict', `${subject}: ${error.cause?.message ?? error.message}`);
}

/** The problem of the first failure in the cause chain whose type the table knows, worded by failure-reasons.ts. */
function tableProblem(error: Error, work: WorkName): AppError | undefined {
  for (const current of causesOf(error.cause, 5)) {
    if (!(current instanceof ApplicationFailure)) continue;
    const problem = problems[current.type as FailureType];
    if (problem) return problem(failureReasonOfType(current.type ?? undefined, current.message), work);
  }
  return undefined;
}
