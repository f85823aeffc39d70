import { socketCodes } from '../net/socket-errors.ts';
import { causesOf } from '../../common/errors/caught.ts';

/** True for an error of the S3 client that says "object storage cannot answer now" (a socket error or a 5xx). */
export function isStorageUnavailable(error: unknown): boolean {
  for (const current of causesOf(error, 5)) {
    if (!isStorageClientError(current)) continue;
    const code = (current as { code?: unknown }).code;
    const status = (current as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    return (typeof code === 'string' && socketCodes.has(code)) || (status !== undefined && status >= 500) || current.name === 'TimeoutError';
  }
  return false;
}

/** The S3 client's errors carry `$metadata` (the request's attempts, the HTTP status when one came). */
export function isStorageClientError(error: Error): boolean {
  return '$metadata' in error;
}
