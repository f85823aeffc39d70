// Socket errors of a connection that could not be made or was lost: the other side is down or unreachable, and
// the same call can succeed later. Shared by every "is this dependency down?" test.
export const socketCodes: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
