import type { RetryPolicy } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { RemoteRateLimitedError, RemoteRejectedError } from '../src/adapters/net/remote-errors.ts';
import { WorkRefused } from '../src/domain/work-refused.ts';

// When Temporal will run an activity again after attempt number `attempt` failed with `error`, as its retry policy
// computes it: the wait a rate limit asked for (the activity's nextRetryDelay, see temporal-failure.ts), else the
// policy's backoff (initial interval × coefficient^(attempt − 1), at most the maximum interval). Null when no attempt
// follows: the failure is final, or this was the last attempt. The policy is the one the workflow schedules the
// activity with (the activity's Info does not carry it on every server); Temporal's defaults stand for what it
// leaves out.

const defaults = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalFactor: 100 };

function msOf(duration: RetryPolicy['initialInterval']): number | undefined {
  return duration === undefined ? undefined : msToNumber(duration);
}

/** `failedAt` plus the wait before the next attempt, or null when none follows. */
export function nextAttemptAt(error: unknown, attempt: number, policy: RetryPolicy | undefined, failedAt: Date): Date | null {
  if (error instanceof RemoteRejectedError || error instanceof WorkRefused) return null;
  const maximumAttempts = policy?.maximumAttempts ?? 0;
  if (maximumAttempts > 0 && attempt >= maximumAttempts) return null;
  const initialMs = msOf(policy?.initialInterval) ?? defaults.initialIntervalMs;
  const maximumMs = msOf(policy?.maximumInterval) ?? initialMs * defaults.maximumIntervalFactor;
  const backoffMs = Math.min(initialMs * (policy?.backoffCoefficient ?? defaults.backoffCoefficient) ** (attempt - 1), maximumMs);
  const waitMs = error instanceof RemoteRateLimitedError ? error.retryAfterMs : backoffMs;
  return new Date(failedAt.getTime() + waitMs);
}
