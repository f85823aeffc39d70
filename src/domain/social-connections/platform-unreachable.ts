import { AppError } from '../../common/errors/app-error.ts';

/**
 * The 503 for a platform that could not be reached or did not answer in time while checking `what` with it: the
 * client is told to try again shortly, and what the platform or the network said (addresses, ports) stays in the
 * log, with the request id, as the error's cause.
 */
export function platformUnreachable(platform: string, what: string, cause: unknown): AppError {
  const unavailable = new AppError(
    'service-unavailable',
    `Could not check ${what} with ${platform}: it could not be reached or did not answer in time; try again shortly.`,
    { retryAfterSeconds: 30 },
  );
  unavailable.cause = cause;
  return unavailable;
}
