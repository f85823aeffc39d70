import type { Response } from 'express';

/**
 * The fingerprint of the request's `Idempotency-Key` (requestFingerprint), set by the idempotency middleware, or
 * undefined for a request without one. Routes hand it to the operations that record their effects under it, so a
 * retry whose first answer was lost finds them.
 */
export function requestKeyOf(res: Response): string | undefined {
  return (res.locals as { requestKey?: string }).requestKey;
}

export function setRequestKey(res: Response, requestKey: string): void {
  (res.locals as { requestKey?: string }).requestKey = requestKey;
}
