import { randomUUID } from 'node:crypto';
import type { SessionStore } from './social-connector.ts';

/**
 * A session store that lasts one call: what a connector uses when its caller gave none (a connector tested alone).
 * The publish path always passes the connection's own (connection-sessions.ts).
 */
export function callSessionStore(): SessionStore {
  let stored: string | undefined;
  return {
    key: `call-${randomUUID()}`,
    read: () => Promise.resolve(stored),
    async renew(renewal) {
      stored = await renewal(stored);
      return stored;
    },
  };
}
