import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../database/orm.ts';
import { releaseConnectionLease, takeConnectionLease } from './connection-leases.ts';
import { SocialRejectedError, SocialUnavailableError, type SessionStore } from './social-connector.ts';

// A connection's platform session lives sealed in its own row (social_connections.session_sealed). A renewal holds
// the row's session lease from reading the stored session to writing the new one, so two workers never renew one
// connection's session at once: the second waits, then reads what the first stored. The platform answers a renewal
// while no transaction is open and no lock is held (connection-leases.ts says why), and the lease is not the row's
// lock: nothing a customer does to the connection (deleting it, publishing to it) waits on a platform.

/** The session store of connection `connectionId`. */
export function connectionSessions(orm: Database, secrets: SecretBox, connectionId: string): SessionStore {
  const open = (sealed: string | null | undefined) => (sealed ? secrets.open(sealed) : undefined);
  const read = async () => {
    const [row] = await orm.em
      .fork()
      .execute<{ session_sealed: string | null }[]>('select session_sealed from social_connections where id = ?', [connectionId]);
    return row ? { stored: open(row.session_sealed) } : undefined;
  };
  return {
    key: connectionId,

    async read() {
      return (await read())?.stored;
    },

    async renew(renewal) {
      const lease = await takeConnectionLease(orm, connectionId, 'session');
      if (!lease) throw new SocialRejectedError('the social connection was deleted');
      let held = true;
      try {
        const row = await read();
        if (!row) throw new SocialRejectedError('the social connection was deleted');
        const renewed = await renewal(row.stored);
        if (renewed === row.stored) return renewed;
        // Written only while the lease is still this renewal's: a lease that ran out may have let another renewal
        // store a session since, which this one must not overwrite (its refresh token may be the one still valid).
        const written = await orm.em
          .fork()
          .execute<Array<{ id: string }>>(
            'update social_connections set session_sealed = ?, session_lease_owner = null, session_lease_until = null where id = ? and session_lease_owner = ? returning id',
            [secrets.seal(renewed), connectionId, lease],
            'all',
          );
        if (written.length === 0) {
          // Deleted meanwhile: there is nowhere to keep the session, and the renewal's caller may still use it.
          if (!(await read())) return renewed;
          throw new SocialUnavailableError('the session renewal outlasted its lease; try again');
        }
        held = false;
        return renewed;
      } finally {
        if (held) await releaseConnectionLease(orm, connectionId, 'session', lease);
      }
    },
  };
}
