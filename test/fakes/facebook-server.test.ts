import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import { startFacebookServer, type FacebookServer } from './facebook-server.ts';
import { makeImage } from '../support/images.ts';
import { makeVideo } from '../support/video-files.ts';

// The Facebook fake's own strictness: a fake that takes what Facebook refuses would let a connector pass that
// Facebook fails.

let facebook: FacebookServer;
const callbackUrl = 'https://content.example/oauth/facebook/callback';

type GraphOptions = {
  token?: string;
  form?: Record<string, string>;
  query?: Record<string, string>;
  body?: FormData | Buffer;
  headers?: Record<string, string>;
};

function graph(method: 'GET' | 'POST', path: string, options: GraphOptions = {}) {
  return got(`${facebook.url}/v24.0${path}`, {
    method,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.form ? { form: options.form } : {}),
    ...(options.body ? { body: options.body } : {}),
    ...(options.query ? { searchParams: options.query } : {}),
    throwHttpErrors: false,
    responseType: 'json',
  });
}

type GraphErrorBody = { error: { code: number; error_subcode?: number; message: string } };
const errorOf = (body: unknown) => (body as GraphErrorBody).error;

/** The dialog's answer for the scopes asked. */
function dialog(scope: string) {
  const query = new URLSearchParams({ client_id: facebook.app.clientId, redirect_uri: callbackUrl, response_type: 'code', scope, state: 'opaque' });
  return got(`${facebook.authorizeUrl}?${query.toString()}`, { followRedirect: false, throwHttpErrors: false, responseType: 'json' });
}

function accessToken(query: Record<string, string>) {
  return graph('GET', '/oauth/access_token', { query: { client_id: facebook.app.clientId, client_secret: facebook.app.clientSecret, ...query } });
}

/** A photo post's form, multipart as the photo reference's `source` wants it. */
function photoForm(bytes: Buffer, message: string, type = 'image/jpeg'): FormData {
  const data = new FormData();
  data.append('message', message);
  data.append('source', new Blob([new Uint8Array(bytes)], { type }), 'photo.jpg');
  return data;
}

const page = () => facebook.pages[0]!;
const uploadHeaders = (token: string, offset: number) => ({ authorization: `OAuth ${token}`, file_offset: String(offset) });

let jpeg: Buffer;
let video: Buffer;

beforeAll(async () => {
  facebook = await startFacebookServer();
  jpeg = await makeImage('jpeg', '#3366ff', 400);
  video = makeVideo({ seconds: 2 });
});
beforeEach(() => {
  facebook.posts.length = 0;
  facebook.videos.length = 0;
  facebook.videoProcessingChecks = 1;
});
afterAll(async () => {
  await facebook?.close();
});

describe('the Facebook fake', () => {
  it('when the login round trip is done, then the code gives a short token once, the secret is checked, the long token lists the Pages with tokens that never expire', async () => {
    const unknownScope = await dialog('pages_show_list,publish_actions');
    expect(unknownScope.statusCode).toBe(400);
    expect(errorOf(unknownScope.body).message).toContain('publish_actions');

    const consent = await dialog('pages_show_list,pages_manage_posts,pages_read_engagement');
    expect(consent.statusCode).toBe(302);
    const back = new URL(consent.headers.location ?? '');
    expect(back.hash).toBe('#_=_');
    expect(back.searchParams.get('state')).toBe('opaque');
    const code = back.searchParams.get('code') ?? '';

    const wrongSecret = await accessToken({ redirect_uri: callbackUrl, code, client_secret: 'not-the-secret' });
    expect(wrongSecret.statusCode).toBe(400);
    expect(errorOf(wrongSecret.body)).toMatchObject({ code: 1 });
    expect((await accessToken({ redirect_uri: `${callbackUrl}/elsewhere`, code })).statusCode).toBe(400);
    const exchanged = await accessToken({ redirect_uri: callbackUrl, code });
    expect(exchanged.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 3600 });
    const reused = await accessToken({ redirect_uri: callbackUrl, code });
    expect(reused.statusCode).toBe(400);
    expect(errorOf(reused.body)).toMatchObject({ code: 100, message: 'This authorization code has been used.' });

    const short = (exchanged.body as { access_token: string }).access_token;
    const longLived = await accessToken({ grant_type: 'fb_exchange_token', fb_exchange_token: short });
    expect(longLived.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 5_184_000 });
    const long = (longLived.body as { access_token: string }).access_token;

    expect((await graph('GET', '/me', { token: long, query: { fields: 'id,name' } })).body).toEqual(facebook.user);
    const accounts = await graph('GET', '/me/accounts', { token: long, query: { fields: 'id,name,access_token,tasks' } });
    expect(accounts.body).toEqual({
      data: [{ id: page().id, name: page().name, access_token: expect.any(String), tasks: page().tasks }],
      paging: { cursors: expect.any(Object) },
    });
    const pageToken = (accounts.body as { data: { access_token: string }[] }).data[0]!.access_token;
    expect((await graph('GET', '/me', { token: pageToken })).body).toEqual({ id: page().id, name: page().name });

    // The other documented way to a Page token: the Page's access_token field, read with the user token.
    const pageRead = await graph('GET', `/${page().id}`, { token: long, query: { fields: 'access_token,name' } });
    expect(pageRead.body).toEqual({ id: page().id, name: page().name, access_token: expect.any(String) });

    // The long-lived user token expires; the Page token it gave does not.
    facebook.expire(long);
    expect(errorOf((await graph('GET', '/me/accounts', { token: long })).body)).toMatchObject({ code: 190, error_subcode: 463 });
    const posted = await graph('POST', `/${page().id}/feed`, { token: pageToken, form: { message: 'Still here' } });
    expect(posted.statusCode).toBe(200);
  });

  it('when posting with a user token, to a Page the user does not manage, a photo over 4 MB or not an image, or with an expired token, then it is refused and nothing is posted', async () => {
    const user = facebook.issueUserToken('long');
    const pageToken = facebook.pageToken(page().id);

    const withUserToken = await graph('POST', `/${page().id}/feed`, { token: user, form: { message: 'Hello' } });
    expect(withUserToken.statusCode).toBe(403);
    expect(errorOf(withUserToken.body)).toMatchObject({ code: 200 });

    const otherPage = await graph('POST', '/61559999999999999/feed', { token: pageToken, form: { message: 'Hello' } });
    expect(otherPage.statusCode).toBe(400);
    expect(errorOf(otherPage.body)).toMatchObject({ code: 100, error_subcode: 33 });

    const tooLarge = await graph('POST', `/${page().id}/photos`, { token: pageToken, body: photoForm(Buffer.concat([jpeg, Buffer.alloc(4_000_000)]), 'Big') });
    expect(tooLarge.statusCode).toBe(400);
    expect(errorOf(tooLarge.body)).toMatchObject({ code: 324 });
    const notImage = await graph('POST', `/${page().id}/photos`, { token: pageToken, body: photoForm(Buffer.from('not an image at all'), 'Text') });
    expect(errorOf(notImage.body)).toMatchObject({ code: 324 });
    const webp = await graph('POST', `/${page().id}/photos`, { token: pageToken, body: photoForm(await makeImage('webp'), 'WebP', 'image/webp') });
    expect(errorOf(webp.body)).toMatchObject({ code: 324 });

    const expiring = facebook.pageToken(page().id);
    facebook.expire(expiring);
    const expired = await graph('POST', `/${page().id}/feed`, { token: expiring, form: { message: 'Hello' } });
    expect(errorOf(expired.body)).toMatchObject({ code: 190, error_subcode: 463 });
    expect(facebook.posts).toEqual([]);
  });

  it('when a photo is posted by multipart and a text post with a link, then both are on the Page, listed newest first, with their permalinks', async () => {
    const token = facebook.pageToken(page().id);
    const photo = await graph('POST', `/${page().id}/photos`, { token, body: photoForm(jpeg, 'Harbour lights') });
    expect(photo.statusCode).toBe(200);
    expect(photo.body).toEqual({ id: expect.any(String), post_id: expect.stringMatching(new RegExp(`^${page().id}_`)) });
    const text = await graph('POST', `/${page().id}/feed`, { token, form: { message: 'Read more', link: 'https://content.example/a' } });
    expect(text.body).toEqual({ id: expect.stringMatching(new RegExp(`^${page().id}_`)) });

    expect(facebook.posts).toEqual([
      expect.objectContaining({ kind: 'photo', message: 'Harbour lights', photo: { bytes: jpeg, contentType: 'image/jpeg' } }),
      expect.objectContaining({ kind: 'text', message: 'Read more', link: 'https://content.example/a' }),
    ]);
    const since = String(Math.floor(Date.now() / 1000) - 60);
    const feed = await graph('GET', `/${page().id}/feed`, { token, query: { fields: 'id,message,created_time,permalink_url', since } });
    expect(feed.body).toEqual({
      data: [
        { id: facebook.posts[1]!.id, message: 'Read more', created_time: expect.any(String), permalink_url: `${facebook.url}/${facebook.posts[1]!.id}` },
        { id: facebook.posts[0]!.id, message: 'Harbour lights', created_time: expect.any(String), permalink_url: `${facebook.url}/${facebook.posts[0]!.id}` },
      ],
      paging: expect.any(Object),
    });
    const postId = (photo.body as { post_id: string }).post_id;
    expect((await graph('GET', `/${postId}`, { token, query: { fields: 'permalink_url' } })).body).toEqual({
      id: postId,
      permalink_url: facebook.posts[0]!.permalinkUrl,
    });
  });

  it('when a video is uploaded in two parts, the offset asked in between, then published, it is processing, then ready and posted; a wrong offset or an unknown handle is refused', async () => {
    const user = facebook.issueUserToken('long');
    const token = facebook.pageToken(page().id);
    const before = facebook.bytesReceivedTotal();
    const started = await graph('POST', `/${facebook.app.clientId}/uploads`, {
      token: user,
      query: { file_name: 'walk.mp4', file_length: String(video.length), file_type: 'video/mp4' },
    });
    expect(started.body).toEqual({ id: expect.stringMatching(/^upload:/) });
    const session = (started.body as { id: string }).id;
    const half = Math.floor(video.length / 2);

    const first = await graph('POST', `/${session}`, { headers: uploadHeaders(user, 0), body: video.subarray(0, half) });
    expect(first.body).toEqual({ id: session, file_offset: half });
    const wrongOffset = await graph('POST', `/${session}`, { headers: uploadHeaders(user, 0), body: video.subarray(0, half) });
    expect(wrongOffset.statusCode).toBe(400);
    expect(errorOf(wrongOffset.body).code).toBe(100);
    const withoutHeaderToken = await graph('GET', `/${session}`, { token: user });
    expect(errorOf(withoutHeaderToken.body).code).toBe(190);
    const offset = await graph('GET', `/${session}`, { headers: { authorization: `OAuth ${user}` } });
    expect(offset.body).toEqual({ id: session, file_offset: half });
    const rest = await graph('POST', `/${session}`, { headers: uploadHeaders(user, half), body: video.subarray(half) });
    expect(rest.body).toEqual({ h: expect.any(String) });
    expect(facebook.uploads.get(session)?.bytes).toEqual(video);
    expect(facebook.bytesReceivedTotal() - before).toBe(video.length + half);

    const unknownHandle = await graph('POST', `/${page().id}/videos`, { token, form: { fbuploader_video_file_chunk: '2:bm90IGEgaGFuZGxl', title: 'Walk' } });
    expect(unknownHandle.statusCode).toBe(400);
    const published = await graph('POST', `/${page().id}/videos`, {
      token,
      form: { fbuploader_video_file_chunk: (rest.body as { h: string }).h, title: 'Spring walk', description: 'A walk in spring' },
    });
    expect(published.body).toEqual({ id: expect.any(String) });
    const videoId = (published.body as { id: string }).id;

    const check = async () =>
      (await graph('GET', `/${videoId}`, { token, query: { fields: 'status,permalink_url' } })).body as { status: Record<string, unknown> };
    expect((await check()).status).toMatchObject({
      video_status: 'processing',
      uploading_phase: { status: 'complete' },
      processing_phase: { status: 'in_progress' },
    });
    expect(facebook.posts).toEqual([]);
    const ready = await check();
    expect(ready).toEqual({
      id: videoId,
      status: expect.objectContaining({
        video_status: 'ready',
        processing_phase: { status: 'complete' },
        publishing_phase: expect.objectContaining({ status: 'complete' }),
      }),
      permalink_url: `/${page().id}/videos/${videoId}/`,
    });
    expect(facebook.posts).toEqual([expect.objectContaining({ kind: 'video', videoId, title: 'Spring walk', message: 'A walk in spring' })]);
    const feed = await graph('GET', `/${page().id}/feed`, { token, query: { fields: 'id,message,permalink_url' } });
    expect((feed.body as { data: unknown[] }).data).toEqual([
      { id: facebook.posts[0]!.id, message: 'A walk in spring', permalink_url: facebook.posts[0]!.permalinkUrl },
    ]);
  });

  it('when an upload answer is dropped, a post times out or a rate limit is scripted, then the bytes and the post are kept and the limit answers with its code and headers', async () => {
    const user = facebook.issueUserToken('long');
    const token = facebook.pageToken(page().id);
    const started = await graph('POST', `/${facebook.app.clientId}/uploads`, {
      token: user,
      query: { file_name: 'walk.mp4', file_length: String(video.length), file_type: 'video/mp4' },
    });
    const session = (started.body as { id: string }).id;
    facebook.dropAnswerOfNextUpload();
    await expect(graph('POST', `/${session}`, { headers: uploadHeaders(user, 0), body: video })).rejects.toThrow();
    expect((await graph('GET', `/${session}`, { headers: { authorization: `OAuth ${user}` } })).body).toEqual({ id: session, file_offset: video.length });
    expect((await graph('POST', `/${session}`, { headers: uploadHeaders(user, video.length), body: Buffer.alloc(0) })).body).toEqual({ h: expect.any(String) });

    facebook.timeOutAfterPosting = 1;
    await expect(
      got.post(`${facebook.url}/v24.0/${page().id}/feed`, { form: { message: 'Lost answer', access_token: token }, timeout: { request: 300 } }),
    ).rejects.toThrow();
    expect(facebook.posts).toEqual([expect.objectContaining({ message: 'Lost answer' })]);

    const usage = JSON.stringify({ [page().id]: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: 5 }] });
    facebook.script('feed', [{ status: 429, code: 32, retryAfter: '300', rateLimitReset: usage }]);
    const limited = await graph('POST', `/${page().id}/feed`, { token, form: { message: 'Too soon' } });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('300');
    expect(limited.headers['x-business-use-case-usage']).toBe(usage);
    expect(errorOf(limited.body)).toMatchObject({ code: 32, message: 'Page request limit reached' });
    expect(facebook.posts).toHaveLength(1);
  });
});
