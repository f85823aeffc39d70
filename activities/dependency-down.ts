import { isGrpcServiceError } from '@temporalio/client';
import { ConnectionException, DeadlockException, LockWaitTimeoutException } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable } from '../src/data/database-unavailable.ts';

// What "a dependency is down" looks like from an activity: the only failures worth retrying without limit.
// Everything not listed fails the same way on every attempt (bad data, a bug, a refused constraint).

// gRPC statuses of a Temporal server that is unreachable, overloaded or too slow.
const unavailableGrpc = new Set([4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */]);

export function isDependencyDown(error: unknown): boolean {
  // Two transactions that collided: the next attempt does not collide.
  if (error instanceof ConnectionException || error instanceof DeadlockException || error instanceof LockWaitTimeoutException) return true;
  // The same test the api uses to answer 503.
  if (isDatabaseUnavailable(error)) return true;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (isGrpcServiceError(current)) return unavailableGrpc.has(current.code);
  }
  return false;
}
