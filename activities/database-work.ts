import { ApplicationFailure } from '@temporalio/activity';
import { failureTypes } from '../src/temporal/failure-types.ts';
import { isDependencyDown } from './dependency-down.ts';

/**
 * The boundary of an activity that works on our own database (workflows retry it without limit, see
 * workflows/activity-options.ts): a dependency that is down stays retryable; any other error is final, so bad data
 * or a bug fails the workflow visibly at once instead of retrying for ever. A failure the activity chose itself
 * (ApplicationFailure) passes as it is.
 */
export async function finalUnlessDependencyDown<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApplicationFailure || isDependencyDown(error)) throw error;
    const cause = error instanceof Error ? error : new Error(String(error));
    throw ApplicationFailure.create({ message: cause.message, type: failureTypes.unexpected, nonRetryable: true, cause });
  }
}
