import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import got from 'got';
import { startPinterestServer, type PinterestServer } from './pinterest-server.ts';
import { makeImage } from '../support/images.ts';
import { makeVideo } from '../support/video-files.ts';

// The Pinterest fake's own strictness: a fake that takes what Pinterest refuses would let a connector pass that
// Pinterest fails.

let pinterest: PinterestServer;
let png: Buffer;
const callbackUrl = 'https://content.example/oauth/pinterest/callback';

const basic = (clientId: string, clientSecret: string) => `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

function api(path: string, options: { token?: string; json?: unknown; method?: 'GET' | 'POST' } = {}) {
  return got(`${pinterest.url}/v5${path}`, {
    method: options.method ?? (options.json === undefined ? 'GET' : 'POST'),
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    json: options.json,
    throwHttpErrors: false,
    responseType: 'json',
  });
}

function exchange(form: Record<string, string>, authorization = basic(pinterest.client.clientId, pinterest.client.clientSecret)) {
  return got.post(`${pinterest.url}/v5/oauth/token`, { headers: { authorization }, form, throwHttpErrors: false, responseType: 'json' });
}

/** The code the consent page redirects back with, for the scopes asked. */
async function consentCode(scopes: string): Promise<string> {
  const query = new URLSearchParams({ client_id: pinterest.client.clientId, redirect_uri: callbackUrl, response_type: 'code', scope: scopes, state: 'opaque' });
  const answer = await got(`${pinterest.authorizeUrl}?${query.toString()}`, { followRedirect: false, throwHttpErrors: false });
  expect(answer.statusCode).toBe(302);
  const back = new URL(answer.headers.location ?? '');
  expect(back.searchParams.get('state')).toBe('opaque');
  return back.searchParams.get('code') ?? '';
}

const imagePin = () => ({
  board_id: pinterest.boards[0]!.id,
  title: 'Harbour lights',
  alt_text: 'Boats in a harbour at dusk',
  media_source: { source_type: 'image_base64', content_type: 'image/png', data: png.toString('base64') },
});

beforeAll(async () => {
  pinterest = await startPinterestServer();
  png = await makeImage('png');
});
beforeEach(() => {
  pinterest.pins.length = 0;
  pinterest.videoProcessingChecks = 1;
});
afterAll(() => pinterest?.close());

describe('the Pinterest fake', () => {
  it('when a Pin breaks the description, its image is not what it claims, or the token lacks a scope, then it is refused as Pinterest refuses it', async () => {
    const token = pinterest.issueAccessToken();
    const malformed = await api('/pins', { token, json: { ...imagePin(), title: 'x'.repeat(101), board_id: 'harbour' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toEqual({
      code: 1,
      message: 'Invalid parameters: body/board_id must match pattern "^\\d+$"; body/title must NOT have more than 100 characters',
    });

    const jpegClaimed = await api('/pins', { token, json: { ...imagePin(), media_source: { ...imagePin().media_source, content_type: 'image/jpeg' } } });
    expect(jpegClaimed.statusCode).toBe(400);
    expect(jpegClaimed.body).toMatchObject({ code: 1, message: expect.stringContaining('is an image/png image') as string });

    const readOnly = pinterest.issueAccessToken(undefined, ['boards:read', 'pins:read']);
    expect((await api('/pins', { token: readOnly, json: imagePin() })).body).toMatchObject({ code: 3 });
    expect(pinterest.pins).toEqual([]);

    const created = await api('/pins', { token, json: imagePin() });
    expect(created.statusCode).toBe(201);
    expect(created.body).toMatchObject({ board_id: pinterest.boards[0]!.id, title: 'Harbour lights', media: { media_type: 'image' } });
    expect(pinterest.pins[0]!.media).toEqual({ kind: 'image', bytes: png, contentType: 'image/png' });
  });

  it('when the token endpoint is called without the client in Basic auth, then it answers 401 and grants nothing', async () => {
    const code = await consentCode('boards:read,pins:read,pins:write,user_accounts:read');
    const form = { grant_type: 'authorization_code', code, redirect_uri: callbackUrl };
    for (const authorization of ['', basic(pinterest.client.clientId, 'not-the-secret'), `Bearer ${pinterest.issueAccessToken()}`]) {
      const refused = await exchange(form, authorization);
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toEqual({ code: 2, message: 'Authentication failed.' });
    }
    expect(pinterest.currentRefreshToken()).toBeUndefined();
    expect((await exchange(form)).statusCode).toBe(200);
  });

  it('when a refresh token is used, then a new access token and refresh token come back and the old refresh token is refused from then on', async () => {
    const code = await consentCode('boards:read,pins:read,pins:write,user_accounts:read');
    const first = await exchange({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl, continuous_refresh: 'true' });
    expect(first.body).toMatchObject({ response_type: 'authorization_code', token_type: 'bearer', refresh_token: expect.stringMatching(/^pinr_/) as string });
    expect((await exchange({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl })).statusCode).toBe(400);

    const { refresh_token: oldRefresh } = first.body as { refresh_token: string };
    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: oldRefresh });
    expect(refreshed.statusCode).toBe(200);
    const body = refreshed.body as Record<string, unknown>;
    expect(body).toMatchObject({ response_type: 'refresh_token', refresh_token_expires_in: expect.any(Number) as number });
    expect(body.refresh_token_expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(body.refresh_token).not.toBe(oldRefresh);
    expect(pinterest.currentRefreshToken()).toBe(body.refresh_token);
    expect(pinterest.retiredRefreshTokens).toContain(oldRefresh);
    expect((await api('/user_account', { token: body.access_token as string })).body).toMatchObject({ username: pinterest.account.username });

    const reused = await exchange({ grant_type: 'refresh_token', refresh_token: oldRefresh });
    expect(reused.statusCode).toBe(400);
    expect(reused.body).toMatchObject({ code: 1 });
  });

  it('when boards are listed a page at a time, then each bookmark leads to the next page, the last has none, and a page over 250 is refused', async () => {
    const boards = pinterest.boards;
    pinterest.boards = Array.from({ length: 5 }, (_, index) => ({ id: String(700_000_000 + index), name: `Board ${index}`, privacy: 'PUBLIC' as const }));
    try {
      const token = pinterest.issueAccessToken(undefined, ['boards:read']);
      const names: string[] = [];
      let bookmark: string | null = null;
      let pages = 0;
      do {
        const query: string = new URLSearchParams({ page_size: '2', ...(bookmark ? { bookmark } : {}) }).toString();
        const page = (await api(`/boards?${query}`, { token })).body as { items: { name: string }[]; bookmark: string | null };
        names.push(...page.items.map((board) => board.name));
        bookmark = page.bookmark;
        pages += 1;
      } while (bookmark);
      expect(pages).toBe(3);
      expect(names).toEqual(pinterest.boards.map((board) => board.name));

      const tooLarge = await api('/boards?page_size=251', { token });
      expect(tooLarge.statusCode).toBe(400);
      expect(tooLarge.body).toMatchObject({ code: 1, message: expect.stringContaining('query parameter page_size must be <= 250') as string });
      expect((await api('/boards?bookmark=made-up', { token })).statusCode).toBe(400);
    } finally {
      pinterest.boards = boards;
    }
  });

  it('when a video is registered, posted to S3 with its form and processed, then a Pin with a cover takes it, and not before', async () => {
    pinterest.videoProcessingChecks = 2;
    const token = pinterest.issueAccessToken();
    const registered = (await api('/media', { token, json: { media_type: 'video' } })).body as {
      media_id: string;
      upload_url: string;
      upload_parameters: Record<string, string>;
    };
    const video = makeVideo();
    const form = (fields: Record<string, string>, fileFirst = false) => {
      const data = new FormData();
      if (fileFirst) data.append('file', new Blob([new Uint8Array(video)]), 'video.mp4');
      for (const [name, value] of Object.entries(fields)) data.append(name, value);
      if (!fileFirst) data.append('file', new Blob([new Uint8Array(video)]), 'video.mp4');
      return data;
    };
    const upload = (body: FormData, headers: Record<string, string> = {}) => got.post(registered.upload_url, { body, headers, throwHttpErrors: false });

    expect((await upload(form(registered.upload_parameters), { authorization: `Bearer ${token}` })).statusCode).toBe(400);
    expect((await upload(form(registered.upload_parameters, true))).statusCode).toBe(403);
    expect((await upload(form({ ...registered.upload_parameters, key: 'uploads/elsewhere' }))).statusCode).toBe(403);
    expect(pinterest.media.get(registered.media_id)?.status).toBe('registered');

    expect((await upload(form(registered.upload_parameters))).statusCode).toBe(204);
    const videoPin = (cover: Record<string, unknown>) => ({
      board_id: pinterest.boards[0]!.id,
      title: 'Spring walk',
      media_source: { source_type: 'video_id', media_id: registered.media_id, ...cover },
    });
    expect((await api('/pins', { token, json: videoPin({ cover_image_key_frame_time: 0 }) })).statusCode).toBe(400);

    const statuses: string[] = [];
    for (let check = 0; check < 3; check += 1) statuses.push(((await api(`/media/${registered.media_id}`, { token })).body as { status: string }).status);
    expect(statuses).toEqual(['processing', 'processing', 'succeeded']);

    expect((await api('/pins', { token, json: videoPin({}) })).body).toMatchObject({ code: 1, message: expect.stringContaining('cover') as string });
    const created = await api('/pins', { token, json: videoPin({ cover_image_key_frame_time: 0 }) });
    expect(created.statusCode).toBe(201);
    expect(created.body).toMatchObject({ media: { media_type: 'video' } });
    expect(pinterest.pins.at(-1)?.media).toEqual({ kind: 'video', mediaId: registered.media_id });
    expect(pinterest.media.get(registered.media_id)?.bytes).toEqual(video);
  });
});
