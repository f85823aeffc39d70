import { socketCodes } from '../net/socket-errors.ts';
import { isStorageClientError } from '../object-storage/storage-unavailable.ts';
import { causesOf } from '../../common/errors/caught.ts';

// How a database that is down, restarting, overloaded or unreachable shows itself, from `pg` through kysely and
// MikroORM (which wraps driver errors in a DriverException that keeps `code`, or passes `pg`'s own errors on):
// - SQLSTATE class 08 (connection exception), 57P01..57P03 (admin or crash shutdown, starting up), class 53
//   (insufficient resources: too many connections, disk full), 57014 (query cancelled: our statement_timeout),
//   40001, 40P01 and 55P03 (a transaction that collided with another: the next attempt does not collide);
// - socket errors while connecting or talking (ECONNREFUSED when nothing listens, ECONNRESET, ...);
// - `pg`'s and `pg-pool`'s own messages for a connection that died, never came, or stopped answering.
const sqlStates = /^(08...|53...|57P0[123]|57014|40001|40P01|55P03)$/;
const messages =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|is not queryable|Client has encountered a connection error/i;

/** True for an error that says "the database cannot answer now" rather than "this request is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const current of causesOf(error, 5)) {
    // The object-storage client's errors carry `$metadata`: its refused connection is storage's outage, not ours.
    if (isStorageClientError(current)) return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (sqlStates.test(code) || socketCodes.has(code))) return true;
    if (messages.test(current.message)) return true;
    // Several addresses tried (localhost as ::1 and 127.0.0.1): Node reports an AggregateError of socket errors.
    if (current instanceof AggregateError && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
