import type { SessionStore } from './social-connector.ts';

// A platform that processes uploaded media before a post can carry it (Mastodon's 202, X's processing_info,
// LinkedIn's video status): the connector notes the media it uploaded for a publication (by its idempotency key) in
// the connection's session, then stops the attempt while the platform works (MediaStillProcessing). The next attempt
// finds the note and asks the platform about that media instead of uploading it again; the note goes once the post
// is made. Notes of publications abandoned half-way go after a day (a platform drops unattached media by then), so
// the session stays small. The ledger keeps the session's other fields as they are.

export type MediaNote = {
  /** The platform's id of the media (or of its upload, for a platform that uploads in parts). */
  id: string;
  /** When it was uploaded (or its upload begun), epoch ms: how long the platform has been processing it. */
  madeAt: number;
  /** An upload in parts: how many parts the platform has acknowledged, so a later attempt sends the rest. */
  parts?: number;
  /** An upload in parts: every part sent and the upload finished, so the platform is processing it. */
  finalized?: boolean;
  /** The size of the file an upload session was opened for (YouTube asks a session's state with it). */
  bytes?: number;
  /** When the platform forgets an unfinished upload, epoch ms: past it, the upload starts again. */
  expiresAt?: number;
  /** An upload to part URLs the platform gave (LinkedIn): the upload's token and where each part goes. */
  partUrls?: Array<{ url: string; firstByte: number; lastByte: number }>;
  uploadToken?: string;
  /** The id the platform acknowledged each part with (LinkedIn's ETags), in order: what finishing the upload names. */
  partIds?: string[];
  /** Where the parts go, where the platform gives one URL for the whole upload (TikTok's upload_url). */
  uploadUrl?: string;
  /** The size of each part but the last, where the upload announced it (TikTok's chunk_size). */
  chunkBytes?: number;
  /** The post the platform made of the media once it was sent whole (Facebook's video), which a later attempt waits for. */
  madeId?: string;
  /** The account's handle, for the post's link once it is made (TikTok's creator_username). */
  handle?: string;
};

export type MediaLedger = {
  find(idempotencyKey: string): Promise<MediaNote | undefined>;
  note(idempotencyKey: string, note: MediaNote): Promise<void>;
  forget(idempotencyKey: string): Promise<void>;
  /**
   * Forgets the note once the post is made, if it can: failing to must not turn a post made into a failed attempt
   * (notes go after a day anyway).
   */
  forgetAfterPost(idempotencyKey: string): Promise<void>;
};

type Session = { media: Record<string, MediaNote>; [field: string]: unknown };

const keptMs = 24 * 60 * 60 * 1000;

function isNote(value: unknown): value is MediaNote {
  const note = value as Partial<MediaNote> | null;
  return typeof note?.id === 'string' && typeof note.madeAt === 'number';
}

function sessionOf(text: string | undefined): Session {
  try {
    const parsed = JSON.parse(text ?? '{}') as Record<string, unknown>;
    const media = typeof parsed.media === 'object' && parsed.media !== null ? (parsed.media as Record<string, unknown>) : {};
    return { ...parsed, media: Object.fromEntries(Object.entries(media).filter((pair): pair is [string, MediaNote] => isNote(pair[1]))) };
  } catch {
    return { media: {} };
  }
}

/** The ledger kept in a connection's session store. */
export function mediaLedger(sessions: SessionStore): MediaLedger {
  async function change(edit: (media: Record<string, MediaNote>) => void): Promise<void> {
    await sessions.renew((stored) => {
      const session = sessionOf(stored);
      edit(session.media);
      const now = Date.now();
      for (const [key, note] of Object.entries(session.media)) if (now - note.madeAt > keptMs) delete session.media[key];
      return Promise.resolve(JSON.stringify(session));
    });
  }

  const forget = (idempotencyKey: string) =>
    change((media) => {
      delete media[idempotencyKey];
    });

  return {
    async find(idempotencyKey) {
      return sessionOf(await sessions.read()).media[idempotencyKey];
    },
    note: (idempotencyKey, note) =>
      change((media) => {
        media[idempotencyKey] = note;
      }),
    forget,
    forgetAfterPost: (idempotencyKey) => forget(idempotencyKey).catch(() => undefined),
  };
}

/**
 * When to look again at media the platform has been processing since `madeAt`: a quarter of the time it has taken so
 * far, between 2 and 30 seconds, so a short clip is posted soon after it is ready and a long wait costs few checks.
 */
export function nextCheckAfterMs(madeAt: number, now = Date.now()): number {
  return Math.min(30_000, Math.max(2_000, Math.round((now - madeAt) / 4)));
}
