import type { Client } from '@temporalio/client';
import { AppError } from '../errors/app-error.ts';
import { isTemporalUnavailable } from './temporal-unavailable.ts';

// Long enough for a busy server (a schedule's describe can stall for seconds while the server's own scheduler
// worker is backed up), short enough that a caller hears "try again" rather than waiting out the client's own
// retries, which go on far longer when the server is gone, and for ever when it hangs with connections open.
const deadlineMs = 10_000;
const retryAfterSeconds = 5;

/**
 * The one way a request calls Temporal: one deadline for everything `call` sends (its client-side retries
 * included). Temporal unreachable, hung or too slow answers 503 with Retry-After ("Temporal did not <purpose>").
 * Unreachable or hung, nothing was changed; merely slow, Temporal may still carry the change out after we gave up.
 * Either way the same request can be sent again: workflow IDs and plans make each change happen once. An AppError
 * thrown by `call` (the caller's reading of a Temporal answer, e.g. 409 for a run already going) passes through as
 * it is. Temporal's own words stay in the log (`cause`): they name internal addresses.
 */
export async function inTemporal<T>(client: Client, purpose: string, call: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + deadlineMs, call);
  } catch (error) {
    // An AppError is the caller's reading of an answer; an error Temporal will give again (a bad argument, a bug)
    // is a 500, not a "try again".
    if (error instanceof AppError || !isTemporalUnavailable(error)) throw error;
    const unavailable = new AppError('service-unavailable', `Temporal did not ${purpose}; try again shortly.`, { retryAfterSeconds });
    unavailable.cause = error;
    throw unavailable;
  }
}
