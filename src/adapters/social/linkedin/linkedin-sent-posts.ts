import { createHash } from 'node:crypto';
import type { SessionStore } from '../social-connector.ts';

// LinkedIn has no idempotency key, and a post carries nothing of ours but its text. So before each post is sent, the
// connector notes in the connection's SessionStore (sealed in the connection's row, shared by every replica; LinkedIn
// itself has no session to keep there) which publication it is, a digest of the commentary, whether it has media,
// and when. After an attempt whose answer was lost, that note is what the author's recent posts are matched against;
// and no note at all says the attempt stopped before its post (during a video's upload, say), so the next one may
// send it.

/** One post sent, under the publication's idempotency key; `image` is whether it carried media (an image or a video). */
export type SentPost = { key: string; digest: string; image: boolean; at: number };

/** What the notes say of a publication: its post was sent (the note), never sent, or, notes having been cut, unknown. */
export type SentPostLookup = SentPost | 'never sent' | 'unknown';

// Notes are kept a day: longer than any publication's retries, as X's ledger.
const keptMs = 24 * 60 * 60 * 1000;
// Far above the posts one author may make in a day (LinkedIn allows a member 150): the row stays small even so. Past
// it the oldest notes go, and the notes are whole only from the newest note dropped.
const maxNotes = 1_000;
// What the version before kept: the last 50 notes, whatever their age.
const notesKeptBefore = 50;

type Notes = { notes: SentPost[]; wholeSince: number; rest: Record<string, unknown> };

/** The digest a note keeps of a commentary (the text itself would make the row grow by kilobytes a note). */
export function commentaryDigest(commentary: string): string {
  return createHash('sha256').update(commentary).digest('base64url');
}

function parse(stored: string | undefined): Notes {
  if (!stored) return { notes: [], wholeSince: 0, rest: {} };
  try {
    const { linkedInSent, linkedInSentWholeSince, ...rest } = JSON.parse(stored) as { linkedInSent?: unknown; linkedInSentWholeSince?: unknown };
    const notes = Array.isArray(linkedInSent) ? (linkedInSent as SentPost[]) : [];
    // Notes written before they were kept a day were the last 50: whole since the oldest of them once there were 50.
    const wholeSince =
      typeof linkedInSentWholeSince === 'number' ? linkedInSentWholeSince : notes.length < notesKeptBefore ? 0 : Math.min(...notes.map((note) => note.at));
    return { notes, wholeSince, rest };
  } catch {
    // An unreadable session: whatever it noted is lost from now.
    return { notes: [], wholeSince: Date.now(), rest: {} };
  }
}

/** Notes `sent` (replacing an earlier note of the same publication); without a store, nothing can be noted. */
export async function noteSentPost(sessions: SessionStore | undefined, sent: SentPost): Promise<void> {
  await sessions?.renew((stored) => {
    const { notes, wholeSince, rest } = parse(stored);
    const recent = [...notes.filter((note) => note.key !== sent.key && sent.at - note.at < keptMs), sent];
    const dropped = recent.slice(0, Math.max(0, recent.length - maxNotes));
    const kept = recent.slice(dropped.length);
    const since = Math.max(wholeSince, ...dropped.map((note) => note.at));
    return Promise.resolve(JSON.stringify({ ...rest, linkedInSent: kept, linkedInSentWholeSince: since }));
  });
}

/** What the notes say of the publication `key`. */
export async function sentPostOf(sessions: SessionStore | undefined, key: string): Promise<SentPostLookup> {
  if (!sessions) return 'unknown';
  const { notes, wholeSince } = parse(await sessions.read());
  const note = notes.find((candidate) => candidate.key === key);
  if (note) return note;
  // No note, and none of the last day's was dropped: nothing of this publication was sent within its retries.
  return wholeSince <= Date.now() - keptMs ? 'never sent' : 'unknown';
}
