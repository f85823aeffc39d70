import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../net/remote-errors.ts';

/**
 * How a call to a service at the network edge ended, as a metric label: the kinds the activities act on (`unknown`:
 * sent, no answer, see RemoteUnavailableError.outcomeUnknown).
 */
export const remoteCallOutcomes = ['succeeded', 'refused', 'rate-limited', 'unavailable', 'unknown', 'error'] as const;
export type RemoteCallOutcome = (typeof remoteCallOutcomes)[number];

/** Waits for `call` and counts how it ended (`error`: anything that is not the service's answer, e.g. a bug). */
export async function countOutcome<T>(call: Promise<T>, count: (outcome: RemoteCallOutcome) => void): Promise<T> {
  try {
    const result = await call;
    count('succeeded');
    return result;
  } catch (error) {
    count(outcomeOf(error));
    throw error;
  }
}

function outcomeOf(error: unknown): RemoteCallOutcome {
  if (error instanceof RemoteRejectedError) return 'refused';
  if (error instanceof RemoteRateLimitedError) return 'rate-limited';
  if (error instanceof RemoteUnavailableError) return error.outcomeUnknown ? 'unknown' : 'unavailable';
  return 'error';
}
