import { isGrpcServiceError } from '@temporalio/client';
import { ConnectionException, DeadlockException, LockWaitTimeoutException } from '@mikro-orm/postgresql';

// What "a dependency is down" looks like from an activity: the only failures worth retrying without limit.
// Everything not listed fails the same way on every attempt (bad data, a bug, a refused constraint).

// SQLSTATE classes and codes of a database that cannot take work right now: 08 connection exception, 53
// insufficient resources (too many connections, disk full), 57P01-57P03 shutting down or starting up.
const unavailableSqlState = /^(08|53|57P0[123])/;
// Socket errors of the driver, and pg's own words for a connection lost or not obtained in time.
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const lostConnection = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i;
// gRPC statuses of a Temporal server that is unreachable, overloaded or too slow.
const unavailableGrpc = new Set([4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */]);

export function isDependencyDown(error: unknown): boolean {
  // Two transactions that collided: the next attempt does not collide.
  if (error instanceof ConnectionException || error instanceof DeadlockException || error instanceof LockWaitTimeoutException) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (unavailableSqlState.test(code) || socketCodes.has(code))) return true;
  if (isGrpcServiceError(error)) return unavailableGrpc.has(error.code);
  if (lostConnection.test(error.message)) return true;
  return error.cause !== undefined && isDependencyDown(error.cause);
}
