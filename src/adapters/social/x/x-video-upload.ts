import { Readable } from 'node:stream';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { streamedMultipart, type Answer, type PlatformHttp } from '../platform-http.ts';
import { nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import { MediaStillProcessing, SocialRejectedError, SocialUnavailableError, type SocialVideo } from '../social-connector.ts';
import { streamSegments } from '../stream-segments.ts';
import { xDataOf, xErrorText, xFailureOf } from './x-answers.ts';

// A video to X in parts (https://docs.x.com/x-api/media/quickstart/media-upload-chunked): initialize the upload
// (https://docs.x.com/x-api/media/initialize-media-upload: `tweet_video`, `video/mp4`, its size), append each segment
// (https://docs.x.com/x-api/media/append-media-upload, multipart: `media` and `segment_index`), finalize
// (https://docs.x.com/x-api/media/finalize-media-upload), then, while X processes it, its status
// (https://docs.x.com/x-api/media/get-media-upload-status: `processing_info.state` pending, in_progress, failed or
// succeeded, and `check_after_secs`). Every step X acknowledges is noted in the connection's media ledger: an
// attempt that stops (a worker killed mid-upload, a timeout) is followed by one that appends from the first segment
// not acknowledged, into the same upload while X keeps it; the processing wait is the workflow's durable timer
// (MediaStillProcessing), never a loop here.

// X takes segments of up to 5 MB; 4 MiB keeps each request well inside that and the memory held to one segment.
const segmentBytes = 4 * 1024 * 1024;
// How long X's processing may take before the publication gives up on the video.
const processingLimitMs = 30 * 60_000;

type Upload = { http: PlatformHttp; apiUrl: string; token: string; ledger: MediaLedger; idempotencyKey: string };

/** The media id of the post's video on X once X has processed it; while it processes, MediaStillProcessing. */
export async function uploadedXVideo(upload: Upload, video: SocialVideo): Promise<string> {
  const noted = await upload.ledger.find(upload.idempotencyKey);
  if (noted?.finalized) return processed(upload, noted);
  const usable = noted && (noted.expiresAt ?? 0) > Date.now() ? noted : await initialize(upload, video);
  const appended = await appendFrom(upload, video, usable);
  return finalize(upload, appended);
}

function headersOf(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, accept: 'application/json' };
}

async function initialize(upload: Upload, video: SocialVideo): Promise<MediaNote> {
  const { http, apiUrl, token } = upload;
  const answer = await http.request({
    method: 'POST',
    url: new URL('/2/media/upload/initialize', apiUrl),
    headers: headersOf(token),
    json: { media_category: 'tweet_video', media_type: video.type, total_bytes: video.bytes },
  });
  if (answer.status !== 200 && answer.status !== 201) throw xFailureOf(answer, 'the video', [token]);
  const data = xDataOf(answer, 'the video');
  const id = http.textField({ ...answer, body: data }, 'id', 'the video');
  const lifetimeMs = typeof data.expires_after_secs === 'number' ? data.expires_after_secs * 1000 : 0;
  const note = { id, madeAt: Date.now(), parts: 0, expiresAt: Date.now() + lifetimeMs };
  await upload.ledger.note(upload.idempotencyKey, note);
  return note;
}

/** Appends the segments X has not acknowledged, noting each one it does. */
async function appendFrom(upload: Upload, video: SocialVideo, note: MediaNote): Promise<MediaNote> {
  const { http, apiUrl, token } = upload;
  let parts = note.parts ?? 0;
  for await (const segment of streamSegments(video.open(), segmentBytes, parts)) {
    const bytes = segment.reduce((sum, chunk) => sum + chunk.length, 0);
    const media = { field: 'media', fileName: 'segment', contentType: 'application/octet-stream', body: { bytes, open: () => Readable.from(segment) } };
    const { body, contentType } = streamedMultipart([['segment_index', String(parts)]], media);
    const answer = await http.request({
      method: 'POST',
      url: new URL(`/2/media/upload/${encodeURIComponent(note.id)}/append`, apiUrl),
      headers: { ...headersOf(token), 'content-type': contentType },
      body,
    });
    if (answer.status === 404) throw await uploadLost(upload);
    if (answer.status < 200 || answer.status > 204) throw xFailureOf(answer, `part ${parts + 1} of the video`, [token]);
    parts += 1;
    await upload.ledger.note(upload.idempotencyKey, { ...note, parts });
  }
  return { ...note, parts };
}

async function finalize(upload: Upload, note: MediaNote): Promise<string> {
  const { http, apiUrl, token } = upload;
  const answer = await http.request({
    method: 'POST',
    url: new URL(`/2/media/upload/${encodeURIComponent(note.id)}/finalize`, apiUrl),
    headers: headersOf(token),
  });
  if (answer.status !== 200 && answer.status !== 201) throw xFailureOf(answer, 'the video', [token]);
  const finalized = { ...note, madeAt: Date.now(), finalized: true };
  // Finalized: a later attempt asks for its status instead of uploading it again.
  await upload.ledger.note(upload.idempotencyKey, finalized);
  return whenProcessed(upload, finalized, answer, `Uploaded the video (${(note.parts ?? 0).toString()} parts); X is processing it.`);
}

async function processed(upload: Upload, note: MediaNote): Promise<string> {
  const { http, apiUrl, token } = upload;
  const url = new URL('/2/media/upload', apiUrl);
  url.search = new URLSearchParams({ media_id: note.id, command: 'STATUS' }).toString();
  const answer = await http.request({ method: 'GET', url, headers: headersOf(token) });
  if (answer.status === 404) throw await uploadLost(upload);
  if (answer.status !== 200) throw xFailureOf(answer, 'the video', [token]);
  return whenProcessed(upload, note, answer, 'X is still processing the video.');
}

/** X no longer knows the upload (it expired, or X dropped it): the note goes, and the next attempt uploads anew. */
async function uploadLost(upload: Upload): Promise<Error> {
  await upload.ledger.forget(upload.idempotencyKey);
  return new SocialUnavailableError('X no longer has the video being uploaded; the next attempt uploads it again');
}

/** The media id once X says the video is processed; its refusal if X failed it; else the attempt stops a while. */
async function whenProcessed(upload: Upload, note: MediaNote, answer: Answer, detail: string): Promise<string> {
  const data = xDataOf(answer, 'the video');
  const info = (data.processing_info ?? {}) as { state?: unknown; check_after_secs?: unknown; error?: { message?: unknown } };
  if (info.state === undefined || info.state === 'succeeded') return note.id;
  if (info.state === 'failed') {
    await upload.ledger.forget(upload.idempotencyKey);
    const words = typeof info.error?.message === 'string' ? redactedWords(info.error.message, [upload.token], 300) : xErrorText(answer, [upload.token]);
    throw new SocialRejectedError(`X could not process the video${words ? `: ${words}` : ''}`);
  }
  if (Date.now() - note.madeAt > processingLimitMs) {
    throw new SocialRejectedError(`X was still processing the video ${processingLimitMs / 60_000} minutes after it was uploaded`);
  }
  // What X asks, but no sooner than our own spacing (which grows with the time taken): a long processing costs few
  // rounds of the workflow however short X's hint.
  const asked = typeof info.check_after_secs === 'number' && info.check_after_secs > 0 ? info.check_after_secs * 1000 : 0;
  throw new MediaStillProcessing(detail, Math.min(Math.max(asked, nextCheckAfterMs(note.madeAt)), 60_000));
}
