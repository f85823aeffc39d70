import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../database/orm.ts';
import { SocialRejectedError, type SessionStore } from './social-connector.ts';

// A connection's platform session lives sealed in its own row (social_connections.session_sealed). A renewal holds
// a transaction-scoped advisory lock named after the connection from reading the stored session to writing the new
// one, so two workers never renew one connection's session at once: the second waits, then reads what the first
// stored. The lock is held while the platform answers the renewal (seconds, at most the request timeout), so it is
// not the row's lock: nothing a customer does to the connection (deleting it, publishing to it) waits on a platform.

/** The session store of connection `connectionId`. */
export function connectionSessions(orm: Database, secrets: SecretBox, connectionId: string): SessionStore {
  const open = (sealed: string | null | undefined) => (sealed ? secrets.open(sealed) : undefined);
  return {
    key: connectionId,

    async read() {
      const [row] = await orm.em
        .fork()
        .execute<{ session_sealed: string | null }[]>('select session_sealed from social_connections where id = ?', [connectionId]);
      return open(row?.session_sealed);
    },

    renew(renewal) {
      return orm.em.fork().transactional(async (em) => {
        await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`social-session:${connectionId}`]);
        const [row] = await em.execute<{ session_sealed: string | null }[]>('select session_sealed from social_connections where id = ?', [connectionId]);
        if (!row) throw new SocialRejectedError('the social connection was deleted');
        const stored = open(row.session_sealed);
        const renewed = await renewal(stored);
        if (renewed !== stored) await em.execute('update social_connections set session_sealed = ? where id = ?', [secrets.seal(renewed), connectionId]);
        return renewed;
      });
    },
  };
}
