import type { Client } from '@temporalio/client';
import { AppError } from '../errors/app-error.ts';

// Long enough for a busy server (a schedule's describe can stall for seconds while the server's own scheduler
// worker is backed up), short enough that a caller hears "try again" rather than waiting out the client's own
// retries, which go on far longer when the server is gone.
const deadlineMs = 10_000;

/**
 * A call to Temporal on behalf of a request: Temporal refusing, unreachable or too slow answers 503 ("Temporal did
 * not <purpose>"); for a change, nothing was changed.
 */
export async function inTemporal<T>(client: Client, purpose: string, call: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + deadlineMs, call);
  } catch (error) {
    throw new AppError('service-unavailable', `Temporal did not ${purpose}: ${(error as Error).message}`, { retryAfterSeconds: 5 });
  }
}
