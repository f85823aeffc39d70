import { ApplicationFailure } from '@temporalio/activity';
import { WorkRefused } from '../src/domain/work-refused.ts';
import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../src/adapters/net/remote-errors.ts';

/**
 * A failure as Temporal should treat it. Work the domain refused is final, typed from the failure table. Of a
 * service at the network edge, a refusal is final, a rate limit waits as long as the service asked, an outage
 * follows the activity's retry policy (or waits as long as the service said). Anything else passes through.
 */
export function asTemporalFailure(error: unknown): unknown {
  if (error instanceof WorkRefused) return ApplicationFailure.nonRetryable(error.message, error.failureType);
  if (error instanceof RemoteRejectedError) return ApplicationFailure.nonRetryable(error.reason, error.failureType);
  if (error instanceof RemoteRateLimitedError) {
    return ApplicationFailure.create({ message: error.message, type: error.failureType, nextRetryDelay: error.retryAfterMs });
  }
  if (error instanceof RemoteUnavailableError) {
    if (error.retryAfterMs === undefined) return ApplicationFailure.retryable(error.message, error.failureType);
    return ApplicationFailure.create({ message: error.message, type: error.failureType, nextRetryDelay: error.retryAfterMs });
  }
  return error;
}

/** The boundary of an activity that calls services at the network edge (bounded retries): failures as above. */
export async function failingAsTemporal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asTemporalFailure(error);
  }
}
