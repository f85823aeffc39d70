import { createHash } from 'node:crypto';
import type { SessionStore } from './social-connector.ts';

// For a platform with no idempotency key whose posts carry nothing of ours but their text (LinkedIn, Pinterest):
// before each post is sent, the connector notes in the connection's SessionStore (sealed in the connection's row,
// shared by every replica) which publication it is, a digest of the text, whether it has media, and when. After an
// attempt whose answer was lost, that note is what the account's recent posts are matched against; and no note at
// all says the attempt stopped before its post (during a video's upload, say), so the next one may send it.

/** One post sent, under the publication's idempotency key; `image` is whether it carried media (an image or a video). */
export type SentPost = { key: string; digest: string; image: boolean; at: number };

/** What the notes say of a publication: its post was sent (the note), never sent, or, notes having been cut, unknown. */
type SentPostLookup = SentPost | 'never sent' | 'unknown';

// Notes are kept a day: longer than any publication's retries, as X's ledger.
const keptMs = 24 * 60 * 60 * 1000;
// Far above the posts one author may make in a day (LinkedIn allows a member 150): the row stays small even so. Past
// it the oldest notes go, and the notes are whole only from the newest note dropped.
const maxNotes = 1_000;
// What LinkedIn's notes of the version before kept: the last 50 notes, whatever their age.
const notesKeptBefore = 50;

type Notes = { notes: SentPost[]; wholeSince: number; rest: Record<string, unknown> };

/** The digest a note keeps of a post's text (the text itself would make the row grow by kilobytes a note). */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

export type SentPostNotes = {
  /** Notes `sent` (replacing an earlier note of the same publication); without a store, nothing can be noted. */
  note(sessions: SessionStore | undefined, sent: SentPost): Promise<void>;
  /** What the notes say of the publication `key`. */
  lookUp(sessions: SessionStore | undefined, key: string): Promise<SentPostLookup>;
};

/** A platform's notes, kept in the session under `field` (and `<field>WholeSince`) beside whatever else it holds. */
export function sentPostNotes(field: string): SentPostNotes {
  const wholeSinceField = `${field}WholeSince`;

  function parse(stored: string | undefined): Notes {
    if (!stored) return { notes: [], wholeSince: 0, rest: {} };
    try {
      const { [field]: sent, [wholeSinceField]: since, ...rest } = JSON.parse(stored) as Record<string, unknown>;
      const notes = Array.isArray(sent) ? (sent as SentPost[]) : [];
      // Notes written before they were kept a day were the last 50: whole since the oldest of them once there were 50.
      const wholeSince = typeof since === 'number' ? since : notes.length < notesKeptBefore ? 0 : Math.min(...notes.map((note) => note.at));
      return { notes, wholeSince, rest };
    } catch {
      // An unreadable session: whatever it noted is lost from now.
      return { notes: [], wholeSince: Date.now(), rest: {} };
    }
  }

  return {
    async note(sessions, sent) {
      await sessions?.renew((stored) => {
        const { notes, wholeSince, rest } = parse(stored);
        const recent = [...notes.filter((note) => note.key !== sent.key && sent.at - note.at < keptMs), sent];
        const dropped = recent.slice(0, Math.max(0, recent.length - maxNotes));
        const kept = recent.slice(dropped.length);
        const since = Math.max(wholeSince, ...dropped.map((note) => note.at));
        return Promise.resolve(JSON.stringify({ ...rest, [field]: kept, [wholeSinceField]: since }));
      });
    },

    async lookUp(sessions, key) {
      if (!sessions) return 'unknown';
      const { notes, wholeSince } = parse(await sessions.read());
      const note = notes.find((candidate) => candidate.key === key);
      if (note) return note;
      // No note, and none of the last day's was dropped: nothing of this publication was sent within its retries.
      return wholeSince <= Date.now() - keptMs ? 'never sent' : 'unknown';
    },
  };
}
