import { ConnectionException, DeadlockException, LockWaitTimeoutException } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable } from '../src/adapters/database/database-unavailable.ts';
import { isTemporalUnavailable } from '../src/adapters/temporal/temporal-unavailable.ts';

// What "a dependency is down" looks like from an activity: the only failures worth retrying without limit.
// Everything not listed fails the same way on every attempt (bad data, a bug, a refused constraint).

export function isDependencyDown(error: unknown): boolean {
  // A lost connection, or two transactions that collided: the next attempt gets a new one, or does not collide.
  if (error instanceof ConnectionException || error instanceof DeadlockException || error instanceof LockWaitTimeoutException) return true;
  // The same tests the api uses to answer 503.
  return isDatabaseUnavailable(error) || isTemporalUnavailable(error);
}
