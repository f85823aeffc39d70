import type { IncomingHttpHeaders } from 'node:http';

const defaultWaitMs = 60_000;
// Retrying a 429 at once only earns another 429.
const minimumWaitMs = 1_000;

/**
 * How long to wait after a 429: Retry-After (seconds or an HTTP date), else the time the platform's own header says
 * the limit resets (`resetAtOf` gives it in epoch milliseconds, or NaN when there is none), else a minute.
 */
export function rateLimitWaitMs(headers: IncomingHttpHeaders, resetAtOf: (headers: IncomingHttpHeaders) => number): number {
  const retryAfter = headers['retry-after']?.trim();
  let wait = Number.NaN;
  if (retryAfter) wait = /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - Date.now();
  if (!Number.isFinite(wait)) wait = resetAtOf(headers) - Date.now();
  return Number.isFinite(wait) ? Math.max(minimumWaitMs, wait) : defaultWaitMs;
}
