import { createHash } from 'node:crypto';
import type { SessionStore } from '../social-connector.ts';

// Meta's Threads and Instagram post in two steps (a media container, then its publication) and document no
// idempotency of their own. What lets a retry never post twice is the container: before publishing, the connector
// notes the container it made for a publication (by its idempotency key) in the connection's session, and a later
// attempt, or the reconciliation after an attempt whose outcome is unknown, asks the platform for that container's
// status instead of making another (Threads: https://developers.facebook.com/docs/threads/troubleshooting#publishing-does-not-return-a-media-id,
// Instagram: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-container:
// PUBLISHED, FINISHED, IN_PROGRESS, ERROR, EXPIRED). An entry stays a week after its container was made, whatever
// became of it (should recording a publication's outcome fail, its retry finds the post through it), so the session
// stays small; the session's other fields are kept as they are.

export type LedgerEntry = {
  /** The container's id. */
  container: string;
  /** When it was made, epoch ms: the published thread is among the account's threads since. */
  madeAt: number;
  /** The SHA-256 of the text sent, to recognise the thread among the account's without keeping the text. */
  textHash: string;
  /** The post replies to another (a later part of a Threads thread): Threads lists it among the account's replies. */
  reply?: boolean;
};

export type ContainerLedger = {
  find(idempotencyKey: string): Promise<LedgerEntry | undefined>;
  note(idempotencyKey: string, entry: LedgerEntry): Promise<void>;
  forget(idempotencyKey: string): Promise<void>;
};

type Session = { containers: Record<string, LedgerEntry>; rest: Record<string, unknown> };

const keptMs = 7 * 24 * 60 * 60 * 1000;

/** The hash a ledger entry keeps of a post's text (as the platform gives it back: trimmed, NFC). */
export function textHashOf(text: string): string {
  return createHash('sha256').update(text.normalize('NFC').trim()).digest('base64url');
}

function isEntry(value: unknown): value is LedgerEntry {
  const entry = value as Partial<LedgerEntry> | null;
  return typeof entry?.container === 'string' && typeof entry.madeAt === 'number' && typeof entry.textHash === 'string';
}

function sessionOf(text: string | undefined): Session {
  try {
    const { containers: noted, ...rest } = JSON.parse(text ?? '{}') as Record<string, unknown>;
    const containers = typeof noted === 'object' && noted !== null ? (noted as Record<string, unknown>) : {};
    const entries = Object.entries(containers).filter((pair): pair is [string, LedgerEntry] => isEntry(pair[1]));
    return { containers: Object.fromEntries(entries), rest };
  } catch {
    return { containers: {}, rest: {} };
  }
}

/** The ledger kept in a connection's session store. */
export function containerLedger(sessions: SessionStore): ContainerLedger {
  async function change(edit: (containers: Record<string, LedgerEntry>) => void): Promise<void> {
    await sessions.renew((stored) => {
      const { containers, rest } = sessionOf(stored);
      edit(containers);
      const now = Date.now();
      for (const [key, entry] of Object.entries(containers)) if (now - entry.madeAt > keptMs) delete containers[key];
      return Promise.resolve(JSON.stringify({ ...rest, containers }));
    });
  }

  return {
    async find(idempotencyKey) {
      return sessionOf(await sessions.read()).containers[idempotencyKey];
    },
    note: (idempotencyKey, entry) =>
      change((containers) => {
        containers[idempotencyKey] = entry;
      }),
    forget: (idempotencyKey) =>
      change((containers) => {
        delete containers[idempotencyKey];
      }),
  };
}
