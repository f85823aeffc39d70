import { nextCheckAfterMs, type MediaLedger, type MediaNote } from '../media-ledger.ts';
import { streamedMultipart, videoFile } from '../platform-http.ts';
import { MediaStillProcessing, SocialRejectedError, SocialUnavailableError, type SocialVideo } from '../social-connector.ts';
import { pinterestApi, pinterestFailureOf, pinterestHeaders, type PinterestCall } from './pinterest-api.ts';

// A video to Pinterest (https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/, "Video Pins"):
// register the media (https://developers.pinterest.com/docs/api/v5/media-create), which answers an upload URL and
// the fields of a pre-signed S3 POST; send the file in that one POST, the fields first and the file last, with no
// Authorization of ours (the signature in the fields is the authorization; the URL is S3's, not Pinterest's); then
// ask for the media's status (https://developers.pinterest.com/docs/api/v5/media-get) until Pinterest has processed
// it, on the workflow's durable timer (MediaStillProcessing). An upload is one request: one that stops half-way leaves
// nothing usable, so the next attempt registers anew; once sent whole it is noted, so no attempt sends it again.

// How long Pinterest's processing may take before the publication gives up on the video.
const processingLimitMs = 30 * 60_000;

type Upload = PinterestCall & { ledger: MediaLedger; idempotencyKey: string };

/** The media id of the post's video once Pinterest has processed it; while it processes, MediaStillProcessing. */
export async function uploadedPinterestVideo(upload: Upload, video: SocialVideo): Promise<string> {
  const noted = await upload.ledger.find(upload.idempotencyKey);
  const sent = noted?.finalized ? noted : await send(upload, video);
  return processed(upload, sent, noted?.finalized ? 'Pinterest is still processing the video.' : 'Uploaded the video; Pinterest is processing it.');
}

async function send(upload: Upload, video: SocialVideo): Promise<MediaNote> {
  const { http, apiUrl, token } = upload;
  const registered = await http.request({
    method: 'POST',
    url: pinterestApi(apiUrl, '/media'),
    headers: pinterestHeaders(token),
    json: { media_type: 'video' },
  });
  if (registered.status !== 201 && registered.status !== 200) throw pinterestFailureOf(registered, 'the video', [token]);
  const mediaId = http.textField(registered, 'media_id', 'the video');
  const uploadUrl = http.textField(registered, 'upload_url', 'the video');
  const parameters = registered.body.upload_parameters;
  if (typeof parameters !== 'object' || parameters === null) throw new SocialUnavailableError('Pinterest registered the video without its upload fields');
  const fields = Object.entries(parameters as Record<string, unknown>).map(([name, value]): [string, string] => [name, String(value)]);
  const { body, contentType } = streamedMultipart(fields, videoFile('file', video));
  const sent = await http.request({ method: 'POST', url: new URL(uploadUrl), headers: { 'content-type': contentType }, body });
  // S3 answers a pre-signed POST 204 (or 201/200 where the fields ask); its refusals are XML Pinterest did not word.
  if (sent.status < 200 || sent.status > 204) throw pinterestFailureOf(sent, 'the video upload', [token]);
  const note = { id: mediaId, madeAt: Date.now(), finalized: true };
  // Sent whole: a later attempt asks for its status instead of sending it again.
  await upload.ledger.note(upload.idempotencyKey, note);
  return note;
}

async function processed(upload: Upload, note: MediaNote, detail: string): Promise<string> {
  const { http, apiUrl, token } = upload;
  const answer = await http.request({ method: 'GET', url: pinterestApi(apiUrl, `/media/${encodeURIComponent(note.id)}`), headers: pinterestHeaders(token) });
  if (answer.status === 404) {
    // Pinterest no longer has it: the note goes, and the next attempt sends the video anew.
    await upload.ledger.forget(upload.idempotencyKey);
    throw new SocialUnavailableError('Pinterest no longer has the video that was uploaded; the next attempt uploads it again');
  }
  if (answer.status !== 200) throw pinterestFailureOf(answer, 'the video', [token]);
  const status = answer.body.status;
  if (status === 'succeeded') return note.id;
  if (status === 'failed') {
    await upload.ledger.forget(upload.idempotencyKey);
    throw new SocialRejectedError('Pinterest could not process the video (its status is "failed"); check it against Pinterest\'s video specifications');
  }
  if (Date.now() - note.madeAt > processingLimitMs) {
    throw new SocialRejectedError(`Pinterest was still processing the video ${processingLimitMs / 60_000} minutes after it was uploaded`);
  }
  throw new MediaStillProcessing(detail, nextCheckAfterMs(note.madeAt));
}
