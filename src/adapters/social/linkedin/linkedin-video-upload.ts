import { Readable } from 'node:stream';
import { redactedWords } from '../../../common/redaction/redact-secrets.ts';
import { nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import { MediaStillProcessing, SocialRejectedError, SocialUnavailableError, type SocialVideo } from '../social-connector.ts';
import { streamSegments } from '../stream-segments.ts';
import { linkedInFailureOf, type LinkedInApi } from './linkedin-api.ts';

// A video to LinkedIn through its Videos API
// (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api): initialize an upload
// for the author (`initializeUpload` with the file's size), which answers the video's URN, an upload token and the
// byte range and pre-signed URL of each part (4 MB each); PUT each part's bytes to its URL, keeping the ETag LinkedIn
// answers; finalize with the ETags in order (`finalizeUpload`); then, while LinkedIn processes the video, its status
// (`GET /rest/videos/{urn}`: WAITING_UPLOAD, PROCESSING, AVAILABLE or PROCESSING_FAILED) until it is AVAILABLE and a
// post can carry it. Every step LinkedIn acknowledges is noted in the connection's media ledger: an attempt that stops
// (a worker killed mid-upload, a part refused for a moment) is followed by one that sends the parts not acknowledged
// to the same URLs while LinkedIn keeps them, else starts a new upload; the processing wait is the workflow's durable
// timer (MediaStillProcessing), never a loop here.

// How long LinkedIn's processing may take before the publication gives up on the video.
const processingLimitMs = 30 * 60_000;
// Part URLs this close to their expiry are not worth starting on: a part sent as they expire is refused.
const expiryMarginMs = 5 * 60_000;

type Upload = { api: LinkedInApi; token: string; author: string; ledger: MediaLedger; idempotencyKey: string };
type PartUrl = NonNullable<MediaNote['partUrls']>[number];

/** The URN of the post's video on LinkedIn once LinkedIn has processed it; while it processes, MediaStillProcessing. */
export async function uploadedLinkedInVideo(upload: Upload, video: SocialVideo): Promise<string> {
  const noted = await upload.ledger.find(upload.idempotencyKey);
  if (noted?.finalized) return processed(upload, noted);
  // Every part acknowledged (the attempt stopped at finishing the upload): finishing needs none of the URLs.
  if (noted?.partUrls && noted.partIds?.length === noted.partUrls.length) return finalize(upload, noted);
  const usable = noted?.partUrls && (noted.expiresAt ?? 0) - expiryMarginMs > Date.now() ? noted : await initialize(upload, video);
  return finalize(upload, await uploadFrom(upload, video, usable));
}

async function initialize(upload: Upload, video: SocialVideo): Promise<MediaNote> {
  const { api, token, author } = upload;
  const answer = await api.call({
    method: 'POST',
    path: '/rest/videos',
    query: { action: 'initializeUpload' },
    json: { initializeUploadRequest: { owner: author, fileSizeBytes: video.bytes, uploadCaptions: false, uploadThumbnail: false } },
    token,
  });
  if (answer.status !== 200) throw linkedInFailureOf(answer, 'the video', [token]);
  const value = (answer.body.value ?? {}) as { video?: unknown; uploadInstructions?: unknown; uploadToken?: unknown; uploadUrlsExpireAt?: unknown };
  if (typeof value.video !== 'string' || !value.video.startsWith('urn:li:video:'))
    throw new SocialUnavailableError('LinkedIn answered the video upload without its video URN');
  const note: MediaNote = {
    id: value.video,
    madeAt: Date.now(),
    parts: 0,
    partIds: [],
    partUrls: partUrlsOf(upload.api, value.uploadInstructions, video.bytes),
    uploadToken: typeof value.uploadToken === 'string' ? value.uploadToken : '',
    // Without a stated expiry the URLs are used by this attempt only.
    expiresAt: typeof value.uploadUrlsExpireAt === 'number' ? value.uploadUrlsExpireAt : 0,
  };
  await upload.ledger.note(upload.idempotencyKey, note);
  return note;
}

/** The parts LinkedIn asks for: URLs on LinkedIn, whose ranges cover the file from its first byte to its last, in order. */
function partUrlsOf(api: LinkedInApi, instructions: unknown, bytes: number): PartUrl[] {
  const list = Array.isArray(instructions) ? (instructions as Array<Record<string, unknown>>) : [];
  const parts: PartUrl[] = [];
  for (const { uploadUrl, firstByte, lastByte } of list) {
    const next = parts.length > 0 ? parts.at(-1)!.lastByte + 1 : 0;
    if (firstByte !== next || typeof lastByte !== 'number' || !Number.isSafeInteger(lastByte) || lastByte < next) break;
    parts.push({ url: api.uploadUrlOf(uploadUrl).toString(), firstByte: next, lastByte });
  }
  if (parts.length === 0 || parts.length < list.length || parts.at(-1)!.lastByte + 1 !== bytes)
    throw new SocialUnavailableError('LinkedIn answered the video upload with parts that do not cover the file in order');
  return parts;
}

/**
 * Sends the parts LinkedIn has not acknowledged, noting the ETag of each one it does. The parts are cut from storage
 * as LinkedIn sized them for the announced length: a stored video of another length (past its last part, a segment
 * of one byte, so nothing more is read) is our fault, and nothing of it is finished.
 */
async function uploadFrom(upload: Upload, video: SocialVideo, note: MediaNote): Promise<MediaNote> {
  const parts = note.partUrls ?? [];
  const partIds = [...(note.partIds ?? [])];
  const sizeOf = (index: number) => (index < parts.length ? parts[index]!.lastByte - parts[index]!.firstByte + 1 : 1);
  for await (const segment of streamSegments(video.open(), sizeOf, partIds.length)) {
    const part = partIds.length + 1;
    const bytes = segment.reduce((sum, chunk) => sum + chunk.length, 0);
    if (part > parts.length || bytes !== sizeOf(part - 1)) throw storedLengthMismatch(video);
    // A pre-signed URL: the bearer token stays with the API.
    const answer = await upload.api.http.request({
      method: 'PUT',
      url: new URL(parts[part - 1]!.url),
      headers: { 'content-type': 'application/octet-stream' },
      body: { bytes, open: () => Readable.from(segment) },
    });
    if (answer.status === 403 || answer.status === 404) throw await uploadLost(upload);
    if (answer.status < 200 || answer.status > 204) throw linkedInFailureOf(answer, `part ${part} of the video`, [upload.token]);
    const etag = answer.headers.etag;
    if (typeof etag !== 'string' || !etag) throw new SocialUnavailableError(`LinkedIn acknowledged part ${part} of the video without its ETag`);
    partIds.push(etag);
    await upload.ledger.note(upload.idempotencyKey, { ...note, parts: partIds.length, partIds });
  }
  if (partIds.length !== parts.length) throw storedLengthMismatch(video);
  return { ...note, parts: partIds.length, partIds };
}

function storedLengthMismatch(video: SocialVideo): Error {
  return new Error(`The stored video is not the ${video.bytes} bytes its job recorded`);
}

async function finalize(upload: Upload, note: MediaNote): Promise<string> {
  const { api, token } = upload;
  const answer = await api.call({
    method: 'POST',
    path: '/rest/videos',
    query: { action: 'finalizeUpload' },
    json: { finalizeUploadRequest: { video: note.id, uploadToken: note.uploadToken ?? '', uploadedPartIds: note.partIds ?? [] } },
    token,
  });
  if (answer.status >= 500 || answer.status === 401 || answer.status === 429) throw linkedInFailureOf(answer, 'the video', [token]);
  // Refused, it may be that an earlier attempt's finalize went through and its answer was lost: the status tells.
  // Still waiting for its parts, the upload is not one LinkedIn will finish (a part sent again by an attempt that
  // outlived its timeout has another ETag): the next attempt uploads the video anew.
  if (answer.status !== 200 && (await statusOf(upload, note)).status === 'WAITING_UPLOAD') {
    await upload.ledger.forget(upload.idempotencyKey);
    throw new SocialUnavailableError(`LinkedIn did not finish the upload of the video (${answer.status}); the next attempt uploads it again`);
  }
  const finalized = { ...note, madeAt: Date.now(), finalized: true };
  // Finalized: a later attempt asks for its status instead of uploading it again.
  await upload.ledger.note(upload.idempotencyKey, finalized);
  throw new MediaStillProcessing(`Uploaded the video (${(note.parts ?? 0).toString()} parts); LinkedIn is processing it.`, nextCheckAfterMs(finalized.madeAt));
}

async function statusOf(upload: Upload, note: MediaNote): Promise<Record<string, unknown>> {
  const answer = await upload.api.call({ method: 'GET', path: `/rest/videos/${encodeURIComponent(note.id)}`, token: upload.token });
  if (answer.status === 404) throw await uploadLost(upload);
  if (answer.status !== 200) throw linkedInFailureOf(answer, 'the video', [upload.token]);
  return answer.body;
}

/** The video's URN once LinkedIn says it is available; its refusal if LinkedIn failed it; else the attempt stops a while. */
async function processed(upload: Upload, note: MediaNote): Promise<string> {
  const { status, processingFailureReason } = await statusOf(upload, note);
  if (status === 'AVAILABLE') return note.id;
  if (status === 'PROCESSING_FAILED') {
    await upload.ledger.forget(upload.idempotencyKey);
    const words = typeof processingFailureReason === 'string' ? `: ${redactedWords(processingFailureReason, [upload.token], 300)}` : '';
    throw new SocialRejectedError(`LinkedIn could not process the video${words}`);
  }
  if (Date.now() - note.madeAt > processingLimitMs) {
    throw new SocialRejectedError(`LinkedIn was still processing the video ${processingLimitMs / 60_000} minutes after it was uploaded`);
  }
  throw new MediaStillProcessing('LinkedIn is still processing the video.', nextCheckAfterMs(note.madeAt));
}

/** LinkedIn no longer takes the upload (its URLs expired, or it dropped the video): the note goes, and the next attempt uploads anew. */
async function uploadLost(upload: Upload): Promise<Error> {
  await upload.ledger.forget(upload.idempotencyKey);
  return new SocialUnavailableError('LinkedIn no longer has the video being uploaded; the next attempt uploads it again');
}
