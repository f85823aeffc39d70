import { createHash, randomBytes } from 'node:crypto';
import got from 'got';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startYouTubeServer, type YouTubeServer } from './youtube-server.ts';

// The YouTube fake's own strictness: a fake that takes what Google refuses would let a connector pass that YouTube
// fails.

let youtube: YouTubeServer;
const callbackUrl = 'https://content.example/oauth/youtube/callback';
const uploadScope = 'https://www.googleapis.com/auth/youtube.upload';
const readScope = 'https://www.googleapis.com/auth/youtube.readonly';
const unit = 256 * 1024;

/** Bytes that open as an MP4 (a `ftyp` box first), of the size asked: the fake reads the container, not the video. */
function mp4Of(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisom', 4, 'latin1');
  return bytes;
}

function api(path: string, token: string | undefined) {
  return got(`${youtube.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, throwHttpErrors: false, responseType: 'json' });
}

function beginUpload(token: string, json: unknown, size: number) {
  return got.post(`${youtube.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
    headers: { authorization: `Bearer ${token}`, 'x-upload-content-length': String(size), 'x-upload-content-type': 'video/mp4' },
    json,
    throwHttpErrors: false,
    responseType: 'json',
  });
}

function put(session: string, contentRange: string, body: Buffer = Buffer.alloc(0)) {
  // No retries: got would retry the 503 the fake answers an offset gap with.
  return got.put(session, {
    headers: { 'content-range': contentRange },
    body,
    throwHttpErrors: false,
    followRedirect: false,
    retry: { limit: 0 },
    responseType: 'json',
  });
}

/** The code the consent page redirects back with, for a PKCE verifier. */
async function consentCode(verifier: string, extra: Record<string, string> = {}): Promise<string> {
  const query = new URLSearchParams({
    client_id: youtube.client.clientId,
    redirect_uri: callbackUrl,
    response_type: 'code',
    scope: `${uploadScope} ${readScope}`,
    state: 'opaque',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  });
  const answer = await got(`${youtube.authorizeUrl}?${query.toString()}`, { followRedirect: false, throwHttpErrors: false });
  expect(answer.statusCode).toBe(302);
  const back = new URL(answer.headers.location ?? '');
  expect(back.searchParams.get('state')).toBe('opaque');
  return back.searchParams.get('code') ?? '';
}

function exchange(form: Record<string, string>) {
  const client = { client_id: youtube.client.clientId, client_secret: youtube.client.clientSecret };
  return got.post(youtube.tokenUrl, { form: { ...client, ...form }, throwHttpErrors: false, responseType: 'json' });
}

const video = { snippet: { title: 'Harbour lights', description: 'Boats at night' }, status: { privacyStatus: 'public', selfDeclaredMadeForKids: false } };

beforeAll(async () => {
  youtube = await startYouTubeServer();
});
beforeEach(() => {
  youtube.videos.length = 0;
  youtube.sessions.clear();
  youtube.quotaUsed = 0;
  youtube.unverifiedApp = false;
  youtube.videoProcessingChecks = 1;
});
afterAll(() => youtube?.close());

describe('the YouTube fake', () => {
  it('when a request breaks the discovery document, lacks a token or its scope, then it is refused as Google refuses it', async () => {
    const token = youtube.issueAccessToken();
    const unknownParameter = await api('/youtube/v3/channels?part=snippet&mine=true&shorts=true', token);
    expect(unknownParameter.statusCode).toBe(400);
    expect(unknownParameter.body).toMatchObject({
      error: {
        code: 400,
        message: 'query parameter shorts is not one youtube.channels.list takes',
        errors: [{ message: 'query parameter shorts is not one youtube.channels.list takes', domain: 'global', reason: 'invalidParameter' }],
      },
    });
    // A refused request costs a unit too.
    expect(youtube.quotaUsed).toBe(1);

    const unknownField = await beginUpload(token, { ...video, snippet: { ...video.snippet, hashtags: ['boats'] } }, 1000);
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.body).toMatchObject({
      error: { errors: [{ reason: 'badRequest', message: 'body/snippet must NOT have additional properties (hashtags)' }] },
    });
    expect(youtube.sessions.size).toBe(0);

    expect((await api('/youtube/v3/channels?part=snippet&mine=true', undefined)).body).toMatchObject({
      error: { code: 401, errors: [{ reason: 'authError' }], status: 'UNAUTHENTICATED' },
    });
    // youtube.upload alone lists nothing: channels.list's scopes do not include it.
    const uploadOnly = youtube.issueAccessToken(undefined, [uploadScope]);
    expect((await api('/youtube/v3/channels?part=snippet&mine=true', uploadOnly)).body).toMatchObject({
      error: { code: 403, errors: [{ reason: 'insufficientPermissions' }] },
    });
    const channels = await api('/youtube/v3/channels?part=snippet,contentDetails&mine=true', token);
    expect(channels.body).toMatchObject({
      kind: 'youtube#channelListResponse',
      items: [{ id: youtube.channel.id, contentDetails: { relatedPlaylists: { uploads: youtube.channel.uploadsPlaylistId } } }],
    });
  });

  it('when a code is exchanged, then its PKCE verifier is checked, offline access gives a refresh token, and refreshing never rotates it', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const wrongVerifier = await exchange({
      grant_type: 'authorization_code',
      code: await consentCode(verifier),
      redirect_uri: callbackUrl,
      code_verifier: 'x'.repeat(43),
    });
    expect(wrongVerifier.statusCode).toBe(400);
    expect(wrongVerifier.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid code verifier.' });

    const online = await exchange({ grant_type: 'authorization_code', code: await consentCode(verifier), redirect_uri: callbackUrl, code_verifier: verifier });
    expect(online.statusCode).toBe(200);
    expect(online.body).not.toHaveProperty('refresh_token');

    const code = await consentCode(verifier, { access_type: 'offline', prompt: 'consent' });
    const offline = await exchange({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: verifier });
    expect(offline.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, scope: `${uploadScope} ${readScope}`, refresh_token: expect.any(String) });
    expect((await exchange({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: verifier })).statusCode).toBe(400);

    const refreshToken = (offline.body as { refresh_token: string }).refresh_token;
    for (let refresh = 0; refresh < 2; refresh += 1) {
      const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: refreshToken });
      expect(refreshed.statusCode).toBe(200);
      expect(refreshed.body).not.toHaveProperty('refresh_token');
      const accessToken = (refreshed.body as { access_token: string }).access_token;
      expect((await api('/youtube/v3/channels?part=id&mine=true', accessToken)).statusCode).toBe(200);
    }
    expect(youtube.currentRefreshToken()).toBe(refreshToken);

    const wrongSecret = await got.post(youtube.tokenUrl, {
      headers: { authorization: `Basic ${Buffer.from(`${youtube.client.clientId}:not-the-secret`).toString('base64')}` },
      form: { grant_type: 'refresh_token', refresh_token: refreshToken },
      throwHttpErrors: false,
      responseType: 'json',
    });
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.body).toEqual({ error: 'invalid_client', error_description: 'Unauthorized' });
  });

  it('when a video is uploaded in chunks, then each answers 308 with the Range kept, a status query resumes it, and the last answers the video', async () => {
    youtube.unverifiedApp = true;
    const token = youtube.issueAccessToken();
    const bytes = mp4Of(2 * unit + 1000);
    const size = bytes.length;
    const begun = await beginUpload(token, video, size);
    expect(begun.statusCode).toBe(200);
    const session = begun.headers.location ?? '';
    expect(session).toMatch(new RegExp(`^${youtube.url}/upload/youtube/v3/videos\\?uploadType=resumable&upload_id=`));

    const nothingYet = await put(session, `bytes */${size}`);
    expect(nothingYet.statusCode).toBe(308);
    expect(nothingYet.headers.range).toBeUndefined();

    const first = await put(session, `bytes 0-${unit - 1}/${size}`, bytes.subarray(0, unit));
    expect(first.statusCode).toBe(308);
    expect(first.headers.range).toBe(`bytes=0-${unit - 1}`);

    const unaligned = await put(session, `bytes ${unit}-${unit + 999}/${size}`, bytes.subarray(unit, unit + 1000));
    expect(unaligned.statusCode).toBe(400);
    expect(unaligned.body).toMatchObject({ error: { errors: [{ reason: 'badRequest' }] } });
    const gap = await put(session, `bytes ${2 * unit}-${size - 1}/${size}`, bytes.subarray(2 * unit));
    expect(gap.statusCode).toBe(503);

    const asked = await put(session, `bytes */${size}`);
    expect(asked.statusCode).toBe(308);
    expect(asked.headers.range).toBe(`bytes=0-${unit - 1}`);

    const last = await put(session, `bytes ${unit}-${size - 1}/${size}`, bytes.subarray(unit));
    expect(last.statusCode).toBe(201);
    const { id } = last.body as { id: string };
    expect(last.body).toMatchObject({
      kind: 'youtube#video',
      snippet: { title: 'Harbour lights', description: 'Boats at night', channelId: youtube.channel.id },
      // The unverified app's upload is locked private, whatever it asked.
      status: { uploadStatus: 'uploaded', privacyStatus: 'private' },
    });
    expect(youtube.videos).toMatchObject([{ id, bytes, privacyStatus: 'private', madeForKids: false }]);
    expect(youtube.bytesReceivedTotal()).toBeGreaterThanOrEqual(size);
    expect((await put(session, `bytes */${size}`)).body).toMatchObject({ id });

    const statuses: string[] = [];
    for (let check = 0; check < 2; check += 1) {
      const listed = await api(`/youtube/v3/videos?part=status,processingDetails&id=${id}`, token);
      statuses.push((listed.body as { items: Array<{ status: { uploadStatus: string } }> }).items[0]!.status.uploadStatus);
    }
    expect(statuses).toEqual(['uploaded', 'processed']);

    const uploads = await api(`/youtube/v3/playlistItems?part=snippet,contentDetails&playlistId=${youtube.channel.uploadsPlaylistId}&maxResults=5`, token);
    expect(uploads.body).toMatchObject({ items: [{ snippet: { title: 'Harbour lights', resourceId: { videoId: id } }, contentDetails: { videoId: id } }] });
    expect(youtube.quotaUsed).toBe(100 + 2 + 1);
  });

  it('when a worker dies mid-chunk and the completing answer is lost, then a status query tells what was kept and finds the video made', async () => {
    const token = youtube.issueAccessToken();
    const bytes = mp4Of(3 * unit);
    const session = (await beginUpload(token, video, bytes.length)).headers.location ?? '';
    youtube.holdChunkFrom = unit + 10;
    const held = await got
      .put(session, {
        headers: { 'content-range': `bytes 0-${2 * unit - 1}/${bytes.length}` },
        body: bytes.subarray(0, 2 * unit),
        timeout: { request: 300 },
        retry: { limit: 0 },
      })
      .catch((error: unknown) => error);
    expect(held).toBeInstanceOf(Error);
    // What arrived before the hold, in whole 256 KiB units.
    expect((await put(session, `bytes */${bytes.length}`)).headers.range).toBe(`bytes=0-${unit - 1}`);

    youtube.dropAnswerOfCompletingPut = true;
    const lost = await put(session, `bytes ${unit}-${bytes.length - 1}/${bytes.length}`, bytes.subarray(unit)).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(Error);
    const found = await put(session, `bytes */${bytes.length}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toMatchObject({ id: youtube.videos[0]!.id, status: { uploadStatus: 'uploaded', privacyStatus: 'public' } });
    expect(youtube.videos).toHaveLength(1);
    expect(youtube.videos[0]!.bytes).toEqual(bytes);
  });

  it("when a video would pass the day's quota, then it is refused 403 quotaExceeded, while a list that fits still answers", async () => {
    const token = youtube.issueAccessToken();
    youtube.quotaUsed = youtube.quotaLimit - 50;
    const refused = await beginUpload(token, video, 1000);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 403, errors: [{ domain: 'youtube.quota', reason: 'quotaExceeded' }] } });
    expect(youtube.sessions.size).toBe(0);
    expect((await api('/youtube/v3/channels?part=id&mine=true', token)).statusCode).toBe(200);
    expect(youtube.quotaUsed).toBe(youtube.quotaLimit - 49);
  });
});
