import { ApplicationFailure } from '@temporalio/activity';
import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../src/net/remote-errors.ts';

/**
 * A failure of a service at the network edge as Temporal should treat it: a refusal is final, a rate limit waits
 * as long as the service asked, an outage follows the activity's retry policy. Anything else passes through.
 */
export function asTemporalFailure(error: unknown): unknown {
  if (error instanceof RemoteRejectedError) return ApplicationFailure.nonRetryable(error.reason, error.failureType);
  if (error instanceof RemoteRateLimitedError) {
    return ApplicationFailure.create({ message: error.message, type: error.failureType, nextRetryDelay: error.retryAfterMs });
  }
  if (error instanceof RemoteUnavailableError) return ApplicationFailure.retryable(error.message, error.failureType);
  return error;
}
