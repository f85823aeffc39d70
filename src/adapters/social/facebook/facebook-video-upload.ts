import { Readable } from 'node:stream';
import type { MediaLedger } from '../media-ledger.ts';
import type { MetaGraph } from '../meta/meta-graph.ts';
import { isGraphError } from '../meta/meta-graph.ts';
import { SocialUnavailableError, type SocialVideo } from '../social-connector.ts';
import { facebookPath } from './facebook-graph.ts';

// A Page's video goes through Meta's Resumable Upload API (https://developers.facebook.com/docs/graph-api/guides/upload):
// an upload session opened for the file's length under the app, the bytes sent from an offset, and the file handle
// answered once they are all in, which the Page's video then names
// (https://developers.facebook.com/docs/video-api/guides/publishing). The session is noted in the media ledger before
// the first byte, so an attempt that stopped (a killed worker, a lost answer) asks Facebook where the session stands
// (`file_offset`) and sends only the rest; the handle is noted as soon as it comes, so the file is never sent twice.

export type FacebookUpload = {
  graph: MetaGraph;
  /** The Meta app's id, under which upload sessions are opened. */
  appId: string;
  /** The person's token: upload sessions are theirs. */
  userToken: string;
  ledger: MediaLedger;
  idempotencyKey: string;
};

// An upload session Facebook no longer knows (code 100): a new one is opened.
const unknownSession = { code: 100 };
// Refusals that are not the session's: a token refused (190) or throttling (4, 17, 32, 613) fail or wait as they are.
const keepsSession = [190, 4, 17, 32, 613];

/** The bytes of the stream from `offset` on, read as they are sent (the skipped ones are read and dropped). */
function bytesFrom(video: SocialVideo, offset: number): Readable {
  async function* rest(): AsyncGenerator<Buffer> {
    let skipped = 0;
    for await (const chunk of video.open() as AsyncIterable<Buffer>) {
      if (skipped + chunk.length <= offset) {
        skipped += chunk.length;
        continue;
      }
      yield skipped >= offset ? chunk : chunk.subarray(offset - skipped);
      skipped = offset;
    }
  }
  return Readable.from(rest());
}

/** The file handle of the post's video, uploaded once whatever the attempts. */
export async function uploadedFacebookVideo(upload: FacebookUpload, video: SocialVideo): Promise<string> {
  const { graph, ledger, idempotencyKey, userToken } = upload;
  const noted = await ledger.find(idempotencyKey);
  if (noted?.uploadToken) return noted.uploadToken;
  const oauth = { authorization: `OAuth ${userToken}` };

  async function openSession(): Promise<string> {
    const opened = await graph.post(facebookPath(upload.appId, 'uploads'), {
      file_name: 'video.mp4',
      file_length: String(video.bytes),
      file_type: video.type,
      access_token: userToken,
    });
    if (opened.status !== 200) throw graph.failureOf(opened, 'the video upload', [userToken]);
    const id = graph.textField(opened, 'id', 'the video upload');
    await ledger.note(idempotencyKey, { id, madeAt: Date.now(), bytes: video.bytes });
    return id;
  }

  const sendFrom = (session: string, offset: number) =>
    graph.send(facebookPath(session), {
      method: 'POST',
      headers: { ...oauth, file_offset: String(offset), 'content-type': 'application/octet-stream', accept: 'application/json' },
      body: { bytes: video.bytes - offset, open: () => bytesFrom(video, offset) },
    });

  let session = noted?.id;
  let offset = 0;
  if (session) {
    const status = await graph.send(facebookPath(session), { method: 'GET', headers: { ...oauth, accept: 'application/json' } });
    if (status.status === 200 && typeof status.body.file_offset === 'number') offset = status.body.file_offset;
    else if (isGraphError(status, unknownSession)) session = undefined;
    else throw graph.failureOf(status, 'the video upload', [userToken]);
  }
  const resumed = session !== undefined;
  session ??= await openSession();
  let sent = await sendFrom(session, offset);
  // A session resumed that Facebook no longer takes the rest of (or, whole, no longer answers the handle of: the guide
  // does not say it does) is left for a new one: an upload session never becomes a post, so that is safe.
  const refusedForGood =
    sent.status >= 400 && sent.status < 500 && ![401, 429].includes(sent.status) && !keepsSession.some((code) => isGraphError(sent, { code }));
  if (resumed && refusedForGood) {
    sent = await sendFrom(await openSession(), 0);
  }
  if (sent.status !== 200) throw graph.failureOf(sent, 'the video upload', [userToken]);
  const handle = typeof sent.body.h === 'string' ? sent.body.h : undefined;
  if (!handle) throw new SocialUnavailableError('Facebook took part of the video; the next attempt sends the rest');
  const current = await ledger.find(idempotencyKey);
  await ledger.note(idempotencyKey, { ...(current ?? { id: session, madeAt: Date.now() }), uploadToken: handle });
  return handle;
}
