import { createHash } from 'node:crypto';
import type { SessionStore } from '../social-connector.ts';

// LinkedIn has no idempotency key, and a post carries nothing of ours but its text. So before each post is sent, the
// connector notes in the connection's SessionStore (sealed in the connection's row, shared by every replica; LinkedIn
// itself has no session to keep there) which publication it is, a digest of the commentary, whether it has an image,
// and when. After an attempt whose answer was lost, that note is what the author's recent posts are matched against.

/** One post sent, under the publication's idempotency key. */
export type SentPost = { key: string; digest: string; image: boolean; at: number };

// Enough for the publications a connection has in flight at once; older notes only matter to attempts long retried.
const keptNotes = 50;

/** The digest a note keeps of a commentary (the text itself would make the row grow by kilobytes a note). */
export function commentaryDigest(commentary: string): string {
  return createHash('sha256').update(commentary).digest('base64url');
}

function parse(stored: string | undefined): { notes: SentPost[]; rest: Record<string, unknown> } {
  if (!stored) return { notes: [], rest: {} };
  try {
    const { linkedInSent, ...rest } = JSON.parse(stored) as { linkedInSent?: unknown };
    return { notes: Array.isArray(linkedInSent) ? (linkedInSent as SentPost[]) : [], rest };
  } catch {
    return { notes: [], rest: {} };
  }
}

/** Notes `sent` (replacing an earlier note of the same publication); without a store, nothing can be noted. */
export async function noteSentPost(sessions: SessionStore | undefined, sent: SentPost): Promise<void> {
  await sessions?.renew((stored) => {
    const { notes, rest } = parse(stored);
    const kept = [...notes.filter((note) => note.key !== sent.key), sent].slice(-keptNotes);
    return Promise.resolve(JSON.stringify({ ...rest, linkedInSent: kept }));
  });
}

/** The note of the publication `key`, if a post of it was sent. */
export async function sentPostOf(sessions: SessionStore | undefined, key: string): Promise<SentPost | undefined> {
  if (!sessions) return undefined;
  return parse(await sessions.read()).notes.find((note) => note.key === key);
}
