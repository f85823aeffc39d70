import { isGrpcServiceError } from '@temporalio/client';
import { causesOf } from '../../common/errors/caught.ts';

// gRPC statuses of a Temporal server that is unreachable, overloaded or too slow: the same call can succeed later.
// Every other status (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, ...) will fail the same way again.
const unavailableStatuses = new Set([4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 14 /* UNAVAILABLE */]);

/** True for an error (or a cause of it) that says "Temporal cannot answer now" rather than "this call is wrong". */
export function isTemporalUnavailable(error: unknown): boolean {
  for (const current of causesOf(error, 5)) {
    if (isGrpcServiceError(current)) return unavailableStatuses.has(current.code);
  }
  return false;
}
