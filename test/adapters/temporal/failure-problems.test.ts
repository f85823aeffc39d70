import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/common/errors/app-error.ts';
import { updateFailureAsProblem, workflowFailureAsProblem } from '../../../src/adapters/temporal/failure-problems.ts';
import { ourSideSentence } from '../../../src/adapters/temporal/failure-reasons.ts';
import { failureTypes } from '../../../src/adapters/temporal/failure-types.ts';

// The errors are the ones the Temporal client hands a caller: a workflow's or an update's failure wrapping what the
// workflow, or an activity inside it, raised.

function activityFailed(cause: Error, retryState: 'NON_RETRYABLE_FAILURE' | 'MAXIMUM_ATTEMPTS_REACHED' = 'NON_RETRYABLE_FAILURE'): ActivityFailure {
  return new ActivityFailure('Activity task failed', 'renderPostImage', '1', retryState, 'worker', cause);
}

function workflowFailed(cause: Error): WorkflowFailedError {
  return new WorkflowFailedError('Workflow execution failed', cause, 'NON_RETRYABLE_FAILURE');
}

function problemOf(error: unknown): unknown {
  return error instanceof AppError ? { code: error.code, detail: error.message } : error;
}

describe('workflow failures as problems', () => {
  it("when an activity found the post deleted, then the caller hears 404 in the failure's own words", () => {
    const deleted = ApplicationFailure.nonRetryable('Post p1 was deleted while the work was running.', failureTypes.postDeleted);
    expect(problemOf(workflowFailureAsProblem(workflowFailed(activityFailed(deleted)), 'Rendering'))).toEqual({
      code: 'not-found',
      detail: 'Post p1 was deleted while the work was running.',
    });
  });

  it('when the generation failed for good, then the caller hears 422 naming the work', () => {
    const failed = ApplicationFailure.nonRetryable('The provider refused the prompt.', failureTypes.generationFailed);
    expect(problemOf(workflowFailureAsProblem(workflowFailed(failed), 'Generation'))).toEqual({
      code: 'generation-failed',
      detail: 'Generation failed: The provider refused the prompt.',
    });
  });

  it('when a bounded activity ran out of attempts on our side, then the work failed: 422 in our words, without what the activity said', () => {
    const failure = workflowFailed(
      activityFailed(new ApplicationFailure('EACCES: permission denied, open /srv/objects/p1.png', 'Error'), 'MAXIMUM_ATTEMPTS_REACHED'),
    );
    expect(problemOf(workflowFailureAsProblem(failure, 'Rendering'))).toEqual({ code: 'generation-failed', detail: `Rendering failed: ${ourSideSentence}` });
  });

  it('when the image provider stayed unreachable, then the 422 says so in the sentence of its failure type', () => {
    const unreachable = new ApplicationFailure('Stability AI could not be reached (connect ECONNREFUSED 10.1.2.3:443)', failureTypes.imageProviderUnavailable);
    const failure = workflowFailed(activityFailed(unreachable, 'MAXIMUM_ATTEMPTS_REACHED'));
    expect(problemOf(workflowFailureAsProblem(failure, 'Rendering'))).toEqual({
      code: 'generation-failed',
      detail: 'Rendering failed: The image provider could not be reached after several attempts; try again later.',
    });
  });

  it('when our own bookkeeping failed (a type the table does not know), then the error stays as it is: a 500', () => {
    const failure = workflowFailed(activityFailed(ApplicationFailure.nonRetryable('null value in column', failureTypes.unexpected)));
    expect(workflowFailureAsProblem(failure, 'Generation')).toBe(failure);
  });
});

describe('update failures as problems', () => {
  it('when the workflow refused the update, then the caller hears 409 naming the subject', () => {
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ message: 'The publication is already under way and can no longer be changed.' }),
    );
    expect(problemOf(updateFailureAsProblem(refused, 'Post p1'))).toEqual({
      code: 'conflict',
      detail: 'Post p1: The publication is already under way and can no longer be changed.',
    });
  });

  it("when a connection was deleted before the plan was recorded, then the caller hears 404 in the failure's own words", () => {
    const gone = ApplicationFailure.nonRetryable('Social connection c1 no longer exists.', failureTypes.connectionNotFound);
    expect(problemOf(updateFailureAsProblem(new WorkflowUpdateFailedError('Workflow Update failed', activityFailed(gone)), 'Post p1'))).toEqual({
      code: 'not-found',
      detail: 'Social connection c1 no longer exists.',
    });
  });
});
