import { Readable } from 'node:stream';
import { nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import type { Answer } from '../platform-http.ts';
import { MediaStillProcessing, SocialRejectedError, SocialUnavailableError, type SocialVideo } from '../social-connector.ts';
import { streamSegments } from '../stream-segments.ts';
import { youTubeFailureOf, youTubeHeaders, type YouTubeCall } from './youtube-api.ts';

// A video to YouTube with the resumable upload protocol
// (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol): a POST with the video's
// metadata opens an upload session (its URI in `Location`), which is noted in the connection's media ledger before a
// single byte goes; then the bytes in parts (each a multiple of 256 KiB but the last), each answered 308 with the
// `Range` YouTube has, and the last with the video resource. An attempt that finds a session noted first asks YouTube
// where it stands (an empty PUT with `Content-Range: bytes */<size>`) and sends from the byte it reports, so a worker
// killed mid-upload costs at most the part it was sending; a session YouTube answers with the video was finished (its
// answer lost), so nothing is sent again; one it no longer knows (404) made no video, so a new one starts. Once
// uploaded, YouTube's processing is waited for on the workflow's timer (videos.list, `status.uploadStatus`).

// How long YouTube's processing may take before the publication stops waiting (the video is on the channel by then).
const processingLimitMs = 30 * 60_000;

/**
 * What the upload is given: the call, the ledger, the publication's key, the metadata, the size of each part, and
 * what counts the quota units the calls cost (SocialPost.spendQuota).
 */
export type YouTubeUpload = YouTubeCall & {
  ledger: MediaLedger;
  idempotencyKey: string;
  metadata: object;
  chunkBytes: number;
  spendQuota?: ((units: number) => Promise<void>) | undefined;
};

// https://developers.google.com/youtube/v3/determine_quota_cost: videos.insert costs 1,600 units, videos.list 1. The
// session's PUTs are part of the insert; a resumed session costs nothing more.
export const videosInsertUnits = 1600;
const videosListUnits = 1;

/** Where a session stands: how many bytes YouTube has, or the video it made of them, or no session at all. */
type SessionState = { received: number } | { videoId: string } | 'gone';

/** A video YouTube has: its id and the privacy YouTube gave it, which may not be the one asked (youtube-visibility.ts). */
export type UploadedVideo = { id: string; privacyStatus?: string | undefined };

/** The post's video on YouTube once uploaded and processed; while it processes, MediaStillProcessing. */
export async function uploadedYouTubeVideo(upload: YouTubeUpload, video: SocialVideo): Promise<UploadedVideo> {
  const noted = await upload.ledger.find(upload.idempotencyKey);
  if (noted?.finalized) return processed(upload, noted, 'YouTube is still processing the video.');
  let session = noted?.id;
  let state: SessionState = { received: 0 };
  if (session) state = await sessionState(upload, session, video.bytes);
  if (state === 'gone' || !session) {
    if (session) await upload.ledger.forget(upload.idempotencyKey);
    session = await openSession(upload, video);
    state = { received: 0 };
  }
  const videoId = 'videoId' in state ? state.videoId : await sendFrom(upload, session, video, state.received);
  const note = { id: videoId, madeAt: Date.now(), finalized: true };
  // Uploaded: from now on an attempt only asks about the video, and the look-up after a lost answer finds it here.
  await upload.ledger.note(upload.idempotencyKey, note);
  return processed(upload, note, 'Uploaded the video; YouTube is processing it.');
}

/**
 * The video an earlier attempt of the publication made, from the ledger and, for an upload under way, its session:
 * null where none was made (nothing noted, or a session YouTube has not made a video of), so sending is safe.
 */
export async function youTubeVideoMadeBefore(upload: YouTubeUpload): Promise<string | null> {
  const noted = await upload.ledger.find(upload.idempotencyKey);
  if (!noted) return null;
  if (noted.finalized) return noted.id;
  const state = await sessionState(upload, noted.id, noted.bytes ?? 0);
  return typeof state === 'object' && 'videoId' in state ? state.videoId : null;
}

async function openSession(upload: YouTubeUpload, video: SocialVideo): Promise<string> {
  await upload.spendQuota?.(videosInsertUnits);
  const url = new URL('/upload/youtube/v3/videos', upload.apiUrl);
  url.search = new URLSearchParams({ uploadType: 'resumable', part: 'snippet,status' }).toString();
  const answer = await upload.http.request({
    method: 'POST',
    url,
    headers: {
      ...youTubeHeaders(upload.token),
      'x-upload-content-length': String(video.bytes),
      'x-upload-content-type': video.type,
    },
    json: upload.metadata,
  });
  if (answer.status !== 200 && answer.status !== 201) throw youTubeFailureOf(answer, 'the video', [upload.token]);
  const session = answer.headers.location;
  if (!session || !URL.canParse(session)) throw new SocialUnavailableError('YouTube opened the upload without its session URI');
  // Noted before any byte goes: whatever stops the upload, the next attempt resumes this session.
  await upload.ledger.note(upload.idempotencyKey, { id: session, madeAt: Date.now(), bytes: video.bytes });
  return session;
}

/** The first byte YouTube does not have, from a 308's `Range: bytes=0-<last>` (none: nothing received). */
function receivedOf(answer: Answer): number {
  const range = /^bytes=0-(\d+)$/.exec(answer.headers.range ?? '');
  return range ? Number(range[1]) + 1 : 0;
}

function videoIdOf(upload: YouTubeUpload, answer: Answer): string {
  return upload.http.textField(answer, 'id', 'the video');
}

async function sessionState(upload: YouTubeUpload, session: string, size: number): Promise<SessionState> {
  const answer = await upload.http.request({
    method: 'PUT',
    url: new URL(session),
    headers: { ...youTubeHeaders(upload.token), 'content-range': `bytes */${size}` },
    body: Buffer.alloc(0),
  });
  if (answer.status === 308) return { received: receivedOf(answer) };
  if (answer.status === 200 || answer.status === 201) return { videoId: videoIdOf(upload, answer) };
  if (answer.status === 404 || answer.status === 410) return 'gone';
  throw youTubeFailureOf(answer, 'the upload', [upload.token]);
}

/** Sends the bytes from `received` on, part by part, each from where YouTube says it stands; the video YouTube made. */
async function sendFrom(upload: YouTubeUpload, session: string, video: SocialVideo, received: number): Promise<string> {
  let offset = received;
  while (offset < video.bytes) {
    const start = offset;
    const length = Math.min(upload.chunkBytes, video.bytes - start);
    const last = start + length === video.bytes;
    const part = await partAt(video, start, length);
    const answer = await upload.http.request({
      method: 'PUT',
      url: new URL(session),
      headers: { ...youTubeHeaders(upload.token), 'content-type': video.type, 'content-range': `bytes ${start}-${start + length - 1}/${video.bytes}` },
      body: { bytes: length, open: () => Readable.from(part) },
      // The last part makes the video: sent and unanswered, its outcome is asked of the session before anything else.
      creates: last,
    });
    if (answer.status === 200 || answer.status === 201) return videoIdOf(upload, answer);
    if (answer.status === 404 || answer.status === 410) {
      await upload.ledger.forget(upload.idempotencyKey);
      throw new SocialUnavailableError('YouTube no longer has the upload session; the next attempt uploads the video again');
    }
    if (answer.status !== 308) throw youTubeFailureOf(answer, `the video's bytes from ${start}`, [upload.token]);
    offset = receivedOf(answer);
    // YouTube kept part of what it was sent: the next part starts where it says. Kept nothing: the attempt stops,
    // and the next (after the retry's wait) asks the session again, rather than sending the same part in a loop.
    if (offset <= start) throw new SocialUnavailableError(`YouTube kept none of the part from byte ${start}`);
  }
  throw new SocialUnavailableError('YouTube has every byte of the video but answered no video');
}

/** The video's bytes from `start`, `length` of them (storage read from its start; one part held at a time). */
async function partAt(video: SocialVideo, start: number, length: number): Promise<Buffer[]> {
  const sizes = (index: number) => (index === 0 && start > 0 ? start : length);
  for await (const segment of streamSegments(video.open(), sizes, start > 0 ? 1 : 0)) return segment;
  return [];
}

/** The video once YouTube has processed it; its refusal where YouTube failed or rejected it; else a wait. */
async function processed(upload: YouTubeUpload, note: MediaNote, detail: string): Promise<UploadedVideo> {
  const url = new URL('/youtube/v3/videos', upload.apiUrl);
  url.search = new URLSearchParams({ part: 'status,processingDetails', id: note.id }).toString();
  await upload.spendQuota?.(videosListUnits);
  const answer = await upload.http.request({ method: 'GET', url, headers: youTubeHeaders(upload.token) });
  if (answer.status !== 200) throw youTubeFailureOf(answer, 'the video', [upload.token]);
  const [item] = Array.isArray(answer.body.items) ? (answer.body.items as Array<{ status?: Record<string, unknown> }>) : [];
  const status = item?.status ?? {};
  const uploaded = { id: note.id, privacyStatus: typeof status.privacyStatus === 'string' ? status.privacyStatus : undefined };
  if (status.uploadStatus === 'processed') return uploaded;
  if (status.uploadStatus === 'failed' || status.uploadStatus === 'rejected' || status.uploadStatus === 'deleted') {
    const why = [status.failureReason, status.rejectionReason].find((reason) => typeof reason === 'string');
    throw new SocialRejectedError(`YouTube ${String(status.uploadStatus)} the video${typeof why === 'string' ? ` (${why})` : ''}`);
  }
  if (Date.now() - note.madeAt > processingLimitMs) return uploaded;
  throw new MediaStillProcessing(detail, nextCheckAfterMs(note.madeAt));
}
