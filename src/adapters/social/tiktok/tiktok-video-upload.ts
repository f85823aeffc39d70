import { Readable } from 'node:stream';
import { nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import type { Answer } from '../platform-http.ts';
import { MediaStillProcessing, SocialRejectedError, SocialUnavailableError, type PublishedSocialPost, type SocialVideo } from '../social-connector.ts';
import { streamSegments } from '../stream-segments.ts';
import { tikTokApi, tikTokDataOf, tikTokFailureOf, tikTokJsonHeaders, type TikTokCall } from './tiktok-api.ts';

// A Direct Post of a video sent with FILE_UPLOAD
// (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post): the init announces the post and how the
// file is cut, and answers a publish_id and an upload_url, which are noted in the connection's media ledger before a
// single byte goes; then each chunk is PUT to the upload_url in order
// (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide), each acknowledged chunk noted. TikTok
// makes the post only once the upload is whole and processed, so an attempt that finds a note first asks the publish's
// status (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status): whole, it only waits; not,
// it sends the rest; an upload TikTok no longer takes (expired after its hour, or out of step) never becomes a post, so
// it is forgotten and a new publish starts.

// How long TikTok's processing may take before the publication stops waiting.
const processingLimitMs = 30 * 60_000;

// The guide's chunk rules: a video under 5 MB goes whole; chunks are 5 to 64 MB (read as 10^6 bytes at the top: the
// guide does not say which MB), the last taking the trailing bytes.
const MiB = 1024 * 1024;
const wholeUnder = 5 * MiB;
const maxChunk = 64 * 1_000_000;

/** What an upload is given: the call, the ledger, the publication's key, and the configured size of a chunk. */
export type TikTokUpload = TikTokCall & { ledger: MediaLedger; idempotencyKey: string; chunkBytes: number };

/** How the file is cut: the size of each chunk but the last, and how many there are. */
type ChunkPlan = { chunkSize: number; count: number };

/** The media transfer guide's cut of a file of `size` bytes into chunks of about `preferred`. */
function chunkPlanOf(size: number, preferred: number): ChunkPlan {
  if (size < wholeUnder) return { chunkSize: size, count: 1 };
  const chunk = Math.min(preferred, maxChunk);
  // "total_chunk_count should be equal to video_size divided by chunk_size, rounded down", and one chunk is the whole
  // file: a file under two chunks goes whole where it may, else in two halves.
  if (Math.floor(size / chunk) <= 1) return size <= maxChunk ? { chunkSize: size, count: 1 } : { chunkSize: Math.floor(size / 2), count: 2 };
  return { chunkSize: chunk, count: Math.floor(size / chunk) };
}

const chunkLengthOf = (plan: ChunkPlan, size: number) => (index: number) =>
  index < plan.count - 1 ? plan.chunkSize : size - (plan.count - 1) * plan.chunkSize;

/** A publish's status as TikTok reports it. */
type PublishStatus = { status: string; failReason: string | undefined; uploadedBytes: number | undefined; postIds: string[] };

/** The init: the publish TikTok starts for `postInfo` and this file, noted before any byte goes. */
export async function startPublish(upload: TikTokUpload, postInfo: object, video: SocialVideo, handle: string | undefined): Promise<MediaNote> {
  const plan = chunkPlanOf(video.bytes, upload.chunkBytes);
  const answer = await upload.http.request({
    method: 'POST',
    url: tikTokApi(upload.apiUrl, '/post/publish/video/init/'),
    headers: tikTokJsonHeaders(upload.token),
    json: {
      post_info: postInfo,
      source_info: { source: 'FILE_UPLOAD', video_size: video.bytes, chunk_size: plan.chunkSize, total_chunk_count: plan.count },
    },
  });
  const data = tikTokDataOf(answer);
  if (!data) throw tikTokFailureOf(answer, 'the video', [upload.token]);
  const found = { ...answer, body: data };
  const note: MediaNote = {
    id: upload.http.textField(found, 'publish_id', 'the video'),
    uploadUrl: upload.http.textField(found, 'upload_url', 'the video'),
    madeAt: Date.now(),
    bytes: video.bytes,
    chunkBytes: plan.chunkSize,
    parts: 0,
    ...(handle ? { handle } : {}),
  };
  await upload.ledger.note(upload.idempotencyKey, note);
  return note;
}

/** Where a noted publish stands (POST /v2/post/publish/status/fetch/). */
export async function publishStatusOf(upload: TikTokCall, publishId: string): Promise<PublishStatus> {
  const answer = await upload.http.request({
    method: 'POST',
    url: tikTokApi(upload.apiUrl, '/post/publish/status/fetch/'),
    headers: tikTokJsonHeaders(upload.token),
    json: { publish_id: publishId },
  });
  const data = tikTokDataOf(answer);
  if (!data) throw tikTokFailureOf(answer, "the video's status", [upload.token]);
  if (typeof data.status !== 'string') throw new SocialUnavailableError(`TikTok answered the video's status (${answer.status}) without a status`);
  // The page types the ids list<int64>: TikTok's have 19 digits, past what a JSON number keeps exactly, so an id that
  // did not survive parsing is not used (the publish_id stands for the post instead).
  const ids = Array.isArray(data.publicaly_available_post_id) ? data.publicaly_available_post_id : [];
  const postIds = ids.flatMap((id) => (typeof id === 'string' && /^\d+$/.test(id) ? [id] : Number.isSafeInteger(id) ? [String(id)] : []));
  return {
    status: data.status,
    failReason: typeof data.fail_reason === 'string' ? data.fail_reason : undefined,
    uploadedBytes: typeof data.uploaded_bytes === 'number' ? data.uploaded_bytes : undefined,
    postIds,
  };
}

/**
 * The note of a publish TikTok has the whole file of, noted so: its processing is timed from now, not from the upload's
 * start, so a long upload does not use up the wait.
 */
export async function finalized(upload: TikTokUpload, note: MediaNote): Promise<MediaNote> {
  const whole = { ...note, finalized: true, madeAt: Date.now() };
  await upload.ledger.note(upload.idempotencyKey, whole);
  return whole;
}

/** Whether TikTok has the whole file of a noted publish (it no longer waits for chunks). */
export const uploadComplete = (note: MediaNote, status: PublishStatus) =>
  note.finalized === true || status.status !== 'PROCESSING_UPLOAD' || (status.uploadedBytes !== undefined && status.uploadedBytes === note.bytes);

/**
 * Sends the chunks from the first TikTok has not got on; the note finalized. Returns 'expired' where TikTok no longer
 * takes this upload (its URL past its hour, or it is at another byte than we are), so a new publish must start.
 */
export async function sendChunks(upload: TikTokUpload, note: MediaNote, video: SocialVideo, uploadedBytes?: number): Promise<MediaNote | 'expired'> {
  const plan = { chunkSize: note.chunkBytes ?? video.bytes, count: Math.max(1, Math.floor(video.bytes / (note.chunkBytes ?? video.bytes))) };
  const lengthOf = chunkLengthOf(plan, video.bytes);
  // TikTok's count of bytes received, where it says and it falls between chunks, is better than our note (a chunk
  // whose answer was lost is in).
  const reported = uploadedBytes !== undefined && uploadedBytes % plan.chunkSize === 0 ? uploadedBytes / plan.chunkSize : undefined;
  let sent = Math.min(reported ?? note.parts ?? 0, plan.count);
  let current = { ...note, parts: sent };
  for await (const segment of streamSegments(video.open(), lengthOf, sent)) {
    const start = sent * plan.chunkSize;
    const length = lengthOf(sent);
    const last = sent === plan.count - 1;
    const answer: Answer = await upload.http.request({
      method: 'PUT',
      url: new URL(note.uploadUrl ?? ''),
      headers: { 'content-type': video.type, 'content-range': `bytes ${start}-${start + length - 1}/${video.bytes}` },
      body: { bytes: length, open: () => Readable.from(segment) },
      // The last chunk completes the upload, after which TikTok makes the post: unanswered, a retry asks first.
      creates: last,
    });
    // "Content-Range does not reflect the actual upload progress" (416), an expired upload_url (403), or one TikTok
    // cannot find (404). Unless TikTok has the whole file after all (a last chunk whose answer was lost, sent again),
    // this publish will never be a post, and a new one is safe.
    if (answer.status === 416 || answer.status === 403 || answer.status === 404) {
      return uploadComplete(current, await publishStatusOf(upload, note.id)) ? finalized(upload, current) : 'expired';
    }
    if (answer.status !== 206 && answer.status !== 201) throw tikTokFailureOf(answer, `the video's bytes from ${start}`, [upload.token]);
    sent += 1;
    if (answer.status === 201) return finalized(upload, { ...current, parts: sent });
    current = { ...current, parts: sent };
    await upload.ledger.note(upload.idempotencyKey, current);
  }
  throw new SocialUnavailableError('TikTok took every chunk of the video without saying the upload was complete');
}

// https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status, "Fail reasons", in our words.
const failReasons: Record<string, string> = {
  file_format_check_failed: 'the file is not in a format TikTok takes',
  duration_check_failed: "the video's length is outside what TikTok allows",
  frame_rate_check_failed: "the video's frame rate is outside what TikTok allows",
  picture_size_check_failed: "the video's picture size is outside what TikTok allows",
  publish_cancelled: 'the publish was cancelled',
  auth_removed: 'the account no longer allows this app to post',
  spam_risk_too_many_posts: 'the account has posted as many times as it may today',
  spam_risk_user_banned_from_posting: 'the account is banned from posting',
  spam_risk_text: 'TikTok took the text for spam',
  spam_risk: 'TikTok took the post for spam',
};

/** The post once TikTok has made it; its refusal where the publish failed; else a wait on the workflow's timer. */
export async function publishedOrWait(upload: TikTokUpload, note: MediaNote, status: PublishStatus, detail: string): Promise<PublishedSocialPost> {
  if (status.status === 'PUBLISH_COMPLETE') {
    await upload.ledger.forgetAfterPost(upload.idempotencyKey);
    return publishedOf(note, status);
  }
  if (status.status === 'FAILED') {
    await upload.ledger.forget(upload.idempotencyKey);
    const reason = status.failReason ?? 'unknown';
    // TikTok's own failure is worth another publish (a failed one never becomes a post): the ladder's next attempt.
    if (reason === 'internal')
      throw new SocialUnavailableError('TikTok failed while processing the video (fail_reason internal); the next attempt sends it again');
    throw new SocialRejectedError(`TikTok did not publish the video: ${failReasons[reason] ?? reason} (fail_reason ${reason})`);
  }
  if (Date.now() - note.madeAt > processingLimitMs) {
    throw new SocialRejectedError(`TikTok was still processing the video ${processingLimitMs / 60_000} minutes after it was uploaded`);
  }
  throw new MediaStillProcessing(detail, nextCheckAfterMs(note.madeAt));
}

/** A public video's id and link; a private one is known by its publish_id, and has no link anyone may open. */
export function publishedOf(note: MediaNote, status: PublishStatus): PublishedSocialPost {
  const [postId] = status.postIds;
  if (!postId) return { externalPostId: note.id };
  // A video's page is under its creator's handle.
  if (!note.handle) return { externalPostId: postId };
  return { externalPostId: postId, url: `https://www.tiktok.com/@${encodeURIComponent(note.handle)}/video/${postId}` };
}
