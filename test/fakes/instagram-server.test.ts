import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import sharp from 'sharp';
import { startHttpsServer, type HttpsServer } from './https-server.ts';
import { startInstagramServer, type InstagramServer } from './instagram-server.ts';
import { makeImage } from '../support/images.ts';
import { makeVideo } from '../support/video-files.ts';

// The Instagram fake's own strictness: a fake that takes what Instagram refuses would let a connector pass that
// Instagram fails. Instagram fetches the media itself, so the test serves it from a host of its own.

let instagram: InstagramServer;
let host: HttpsServer;
const files = new Map<string, Buffer>();
const callbackUrl = 'https://content.example/oauth/instagram/callback';

/** Serves the bytes at a new path on the media host and returns their URL. */
function hosted(bytes: Buffer, name: string): string {
  const path = `/${files.size}-${name}`;
  files.set(path, bytes);
  return `${host.url}${path}`;
}

function graph(method: 'GET' | 'POST', path: string, options: { token?: string; form?: Record<string, string>; query?: Record<string, string> } = {}) {
  return got(`${instagram.url}/v23.0${path}`, {
    method,
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    ...(options.form ? { form: options.form } : {}),
    ...(options.query ? { searchParams: options.query } : {}),
    throwHttpErrors: false,
    responseType: 'json',
  });
}

type GraphErrorBody = { error: { code: number; error_subcode?: number; message: string } };
const errorOf = (body: unknown) => (body as GraphErrorBody).error;

/** The code the consent page redirects back with, for the scopes asked. */
async function consentCode(scope: string) {
  const query = new URLSearchParams({ client_id: instagram.app.clientId, redirect_uri: callbackUrl, response_type: 'code', scope, state: 'opaque' });
  return got(`${instagram.authorizeUrl}?${query.toString()}`, { followRedirect: false, throwHttpErrors: false });
}

function exchange(code: string, clientSecret = instagram.app.clientSecret) {
  const form = { client_id: instagram.app.clientId, client_secret: clientSecret, grant_type: 'authorization_code', redirect_uri: callbackUrl, code };
  return got.post(instagram.tokenUrl, { form, throwHttpErrors: false, responseType: 'json' });
}

const createContainer = (token: string, form: Record<string, string>) => graph('POST', `/${instagram.account.userId}/media`, { token, form });
const poll = (token: string, id: string) => graph('GET', `/${id}`, { token, query: { fields: 'status_code,status' } });
const publish = (token: string, id: string) => graph('POST', `/${instagram.account.userId}/media_publish`, { token, form: { creation_id: id } });

/** A container Instagram has taken in: created, then polled until FINISHED. */
async function readyContainer(token: string, form: Record<string, string>): Promise<string> {
  const created = await createContainer(token, form);
  expect(created.statusCode).toBe(200);
  const { id } = created.body as { id: string };
  await expect.poll(async () => (await poll(token, id)).body).toMatchObject({ status_code: 'FINISHED' });
  return id;
}

let jpeg: Buffer;
let reel: Buffer;

beforeAll(async () => {
  host = await startHttpsServer((request, response) => {
    const bytes = files.get(request.url ?? '');
    response.writeHead(bytes ? 200 : 404, { 'content-type': 'application/octet-stream' });
    response.end(bytes);
  });
  instagram = await startInstagramServer();
  jpeg = await makeImage('jpeg', '#3366ff', 400);
  reel = makeVideo({ seconds: 3 });
});
beforeEach(() => {
  instagram.containers.length = 0;
  instagram.media.length = 0;
  instagram.processingPolls = 0;
  instagram.publishingLimit = { total: 100, usedBefore: 0 };
});
afterAll(async () => {
  await instagram?.close();
  await host?.close();
});

describe('the Instagram fake', () => {
  it('when the OAuth round trip is done, then the code gives a short token once, the secret is checked, and the long token refreshes only after 24 hours', async () => {
    expect((await consentCode('instagram_business_basic,business_content_publish')).statusCode).toBe(400);
    const consent = await consentCode('instagram_business_basic,instagram_business_content_publish');
    expect(consent.statusCode).toBe(302);
    const back = new URL(consent.headers.location ?? '');
    expect(back.hash).toBe('#_');
    expect(back.searchParams.get('state')).toBe('opaque');
    const code = back.searchParams.get('code') ?? '';

    const wrongSecret = await exchange(code, 'not-the-secret');
    expect(wrongSecret.statusCode).toBe(400);
    expect(wrongSecret.body).toMatchObject({ error_type: 'OAuthException', code: 400 });
    const exchanged = await exchange(code);
    expect(exchanged.statusCode).toBe(200);
    expect(exchanged.body).toEqual({
      data: [{ access_token: expect.any(String), user_id: instagram.account.id, permissions: 'instagram_business_basic,instagram_business_content_publish' }],
    });
    const reused = await exchange(code);
    expect(reused.statusCode).toBe(400);
    expect(reused.body).toEqual({ error_type: 'OAuthException', code: 400, error_message: 'Matching code was not found or was already used' });

    const short = (exchanged.body as { data: { access_token: string }[] }).data[0]!.access_token;
    const longLived = await got(`${instagram.url}/access_token`, {
      searchParams: { grant_type: 'ig_exchange_token', client_secret: instagram.app.clientSecret, access_token: short },
      responseType: 'json',
    });
    expect(longLived.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 5_184_000 });
    const long = (longLived.body as { access_token: string }).access_token;
    const me = await graph('GET', '/me', { token: long, query: { fields: 'user_id,username,account_type' } });
    expect(me.body).toEqual({ id: instagram.account.id, user_id: instagram.account.userId, username: 'alice', account_type: 'BUSINESS' });

    const refresh = (token: string) =>
      got(`${instagram.url}/refresh_access_token`, {
        searchParams: { grant_type: 'ig_refresh_token', access_token: token },
        throwHttpErrors: false,
        responseType: 'json',
      });
    expect((await refresh(long)).statusCode).toBe(400);
    const refreshed = await refresh(instagram.issueToken('long', 25 * 60 * 60 * 1000));
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'bearer', expires_in: 5_184_000 });
  });

  it('when an image is PNG, 9:16, or its caption is too long or has too many hashtags, then the POST is refused with its error code and no container is made', async () => {
    const token = instagram.issueToken('long');
    const tall = await sharp(jpeg).resize(360, 640, { fit: 'fill' }).jpeg().toBuffer();
    const refusals: { form: Record<string, string>; code: number; subcode: number }[] = [
      { form: { image_url: hosted(await makeImage('png'), 'image.jpg') }, code: 36001, subcode: 2207005 },
      { form: { image_url: hosted(tall, 'tall.jpg') }, code: 36003, subcode: 2207009 },
      { form: { image_url: hosted(jpeg, 'a.jpg'), caption: 'x'.repeat(2_201) }, code: 36004, subcode: 2207010 },
      { form: { image_url: hosted(jpeg, 'b.jpg'), caption: Array.from({ length: 31 }, (_, n) => `#tag${n}`).join(' ') }, code: 36004, subcode: 2207010 },
    ];
    for (const { form, code, subcode } of refusals) {
      const refused = await createContainer(token, form);
      expect(refused.statusCode).toBe(400);
      expect(errorOf(refused.body)).toMatchObject({ code, error_subcode: subcode });
    }
    expect(instagram.containers).toEqual([]);
  });

  it('when an image is published, then not before it is FINISHED, once, and it is listed, readable and counted against the limit', async () => {
    const token = instagram.issueToken('long');
    const form = { image_url: hosted(jpeg, 'harbour.jpg'), caption: 'Harbour lights #dusk @friend', alt_text: 'Boats in a harbour at dusk' };
    const created = await createContainer(token, form);
    const { id: containerId } = created.body as { id: string };
    const early = await publish(token, containerId);
    expect(early.statusCode).toBe(400);
    expect(errorOf(early.body)).toMatchObject({ code: 9007, error_subcode: 2207027 });

    expect((await poll(token, containerId)).body).toEqual({ id: containerId, status_code: 'FINISHED', status: expect.stringMatching(/^Finished/) });
    const published = await publish(token, containerId);
    expect(published.statusCode).toBe(200);
    const { id: mediaId } = published.body as { id: string };
    expect((await publish(token, containerId)).statusCode).toBe(400);
    expect(instagram.media).toHaveLength(1);
    expect(instagram.containers[0]).toMatchObject({ status: 'PUBLISHED', image: { bytes: jpeg } });

    const read = await graph('GET', `/${mediaId}`, { token, query: { fields: 'id,caption,media_type,media_product_type,permalink' } });
    expect(read.body).toEqual({
      id: mediaId,
      caption: form.caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      permalink: instagram.media[0]!.permalink,
    });
    const since = String(Math.floor(Date.now() / 1000) - 60);
    const listed = await graph('GET', `/${instagram.account.userId}/media`, { token, query: { fields: 'id,caption,timestamp,permalink', since } });
    expect(listed.body).toMatchObject({ data: [{ id: mediaId, caption: form.caption, permalink: instagram.media[0]!.permalink }], paging: {} });

    instagram.publishingLimit.usedBefore = 3;
    const limit = await graph('GET', `/${instagram.account.userId}/content_publishing_limit`, { token, query: { fields: 'quota_usage,config' } });
    expect(limit.body).toEqual({ data: [{ quota_usage: 4, config: { quota_total: 100, quota_duration: 86_400 } }] });
  });

  it('when a Reel is made, then it is IN_PROGRESS at first and published as a Reel, while alt text on it, or a video under 3 seconds, is refused', async () => {
    const token = instagram.issueToken('long');
    const withAltText = await createContainer(token, { media_type: 'REELS', video_url: hosted(reel, 'reel.mp4'), alt_text: 'A test pattern' });
    expect(withAltText.statusCode).toBe(400);
    expect(errorOf(withAltText.body)).toMatchObject({ code: 100 });

    const short = await createContainer(token, { media_type: 'REELS', video_url: hosted(makeVideo({ seconds: 1 }), 'short.mp4') });
    expect(short.statusCode).toBe(200);
    expect((await poll(token, (short.body as { id: string }).id)).body).toMatchObject({
      status_code: 'ERROR',
      status: 'Error: Media upload has failed with error code 2207026',
    });

    const created = await createContainer(token, { media_type: 'REELS', video_url: hosted(reel, 'reel.mp4'), caption: 'Spring walk', share_to_feed: 'true' });
    const { id } = created.body as { id: string };
    expect((await poll(token, id)).body).toMatchObject({ status_code: 'IN_PROGRESS' });
    expect((await poll(token, id)).body).toMatchObject({ status_code: 'FINISHED' });
    const published = await publish(token, id);
    expect(published.statusCode).toBe(200);
    expect(instagram.media).toEqual([expect.objectContaining({ mediaType: 'VIDEO', mediaProductType: 'REELS', caption: 'Spring walk' })]);
    expect(instagram.containers.find((container) => container.id === id)?.video).toEqual(reel);
  });

  it('when the publishing limit is used up, a token expires or a rate limit is scripted, then Graph API errors answer', async () => {
    const token = instagram.issueToken('long');
    const id = await readyContainer(token, { image_url: hosted(jpeg, 'limit.jpg') });
    instagram.publishingLimit.usedBefore = 100;
    const overLimit = await publish(token, id);
    expect(overLimit.statusCode).toBe(400);
    expect(errorOf(overLimit.body)).toMatchObject({ code: 9, error_subcode: 2207042 });
    expect(instagram.media).toEqual([]);

    instagram.script('publish', [{ status: 429, retryAfter: '30' }]);
    instagram.publishingLimit.usedBefore = 0;
    const limited = await publish(token, id);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('30');
    expect(errorOf(limited.body)).toMatchObject({ code: 4, message: 'Application request limit reached' });

    instagram.expire(token);
    expect(errorOf((await publish(token, id)).body)).toMatchObject({ code: 190 });
  });
});
