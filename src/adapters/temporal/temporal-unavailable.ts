import { isGrpcServiceError } from '@temporalio/client';

// gRPC statuses of a Temporal server that is unreachable, overloaded or too slow: the same call can succeed later.
// Every other status (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, ...) will fail the same way again.
const unavailableStatuses = new Set([4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */]);

/** True for an error (or a cause of it) that says "Temporal cannot answer now" rather than "this call is wrong". */
export function isTemporalUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (isGrpcServiceError(current)) return unavailableStatuses.has(current.code);
  }
  return false;
}
