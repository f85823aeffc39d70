import got from 'got';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTikTokServer, type TikTokServer } from './tiktok-server.ts';
import { makeVideo } from '../support/video-files.ts';

// The TikTok fake's own strictness: a fake that takes what TikTok refuses would let a connector pass that TikTok
// fails.

let tiktok: TikTokServer;
/** Four seconds of noise at 360×640, about 13 MB: over 10 MiB, so it splits into two chunks of at least 5 MiB. */
let large: Buffer;
/** Four seconds of test pattern: a few kilobytes, one chunk. */
let small: Buffer;
const callbackUrl = 'https://content.example/oauth/tiktok/callback';
const json = 'application/json; charset=UTF-8';

type ApiBody = { data: Record<string, unknown>; error: { code: string; message: string; log_id: string } };

function api(path: string, token: string, body?: unknown, method: 'GET' | 'POST' = 'POST') {
  return got(`${tiktok.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': json } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    throwHttpErrors: false,
    responseType: 'json',
  }).then((answer) => ({ statusCode: answer.statusCode, body: answer.body as ApiBody }));
}

function exchange(form: Record<string, string>, clientSecret = tiktok.client.clientSecret) {
  return got
    .post(`${tiktok.url}/v2/oauth/token/`, {
      form: { client_key: tiktok.client.clientKey, client_secret: clientSecret, ...form },
      throwHttpErrors: false,
      responseType: 'json',
    })
    .then((answer) => ({ statusCode: answer.statusCode, body: answer.body as Record<string, unknown> }));
}

/** The code the consent page redirects back with. */
async function consentCode(scopes = 'user.info.basic,video.publish'): Promise<string> {
  const query = new URLSearchParams({ client_key: tiktok.client.clientKey, scope: scopes, response_type: 'code', redirect_uri: callbackUrl, state: 'opaque' });
  const answer = await got(`${tiktok.authorizeUrl}?${query.toString()}`, { followRedirect: false, throwHttpErrors: false });
  expect(answer.statusCode).toBe(302);
  const back = new URL(answer.headers.location ?? '');
  expect(back.searchParams.get('state')).toBe('opaque');
  expect(back.searchParams.get('scopes')).toBe(scopes);
  return back.searchParams.get('code') ?? '';
}

const postInfo = (extra: Record<string, unknown> = {}) => ({
  title: 'Harbour lights #boats',
  privacy_level: 'PUBLIC_TO_EVERYONE',
  disable_comment: false,
  disable_duet: false,
  disable_stitch: false,
  brand_content_toggle: false,
  ...extra,
});
const wholeSource = (size: number) => ({ source: 'FILE_UPLOAD', video_size: size, chunk_size: size, total_chunk_count: 1 });

async function initPost(token: string, body: unknown) {
  return api('/v2/post/publish/video/init/', token, body);
}

function put(uploadUrl: string, bytes: Buffer, first: number, total: number) {
  // No retries: got retries a PUT whose connection drops.
  return got.put(uploadUrl, {
    headers: { 'content-type': 'video/mp4', 'content-range': `bytes ${first}-${first + bytes.length - 1}/${total}` },
    body: bytes,
    throwHttpErrors: false,
    retry: { limit: 0 },
  });
}

async function statusOf(token: string, publishId: string) {
  return (await api('/v2/post/publish/status/fetch/', token, { publish_id: publishId })).body.data;
}

beforeAll(async () => {
  tiktok = await startTikTokServer();
  large = makeVideo({ width: 360, height: 640, seconds: 4, noise: true });
  small = makeVideo({ seconds: 4 });
});
beforeEach(() => {
  tiktok.publishes.length = 0;
  tiktok.posts.length = 0;
  tiktok.unaudited = false;
  tiktok.processingPolls = 1;
  tiktok.creator.canPost = true;
  tiktok.creator.commentDisabled = false;
});
afterAll(() => tiktok?.close());

describe('the TikTok fake', () => {
  it('when the OAuth flow is followed, then a code is good once, with the right secret only, and each refresh rotates the refresh token', async () => {
    const code = await consentCode();
    const form = { code, grant_type: 'authorization_code', redirect_uri: callbackUrl };
    const wrongSecret = await exchange(form, 'not-the-secret');
    expect(wrongSecret.body).toMatchObject({ error: 'invalid_client', log_id: expect.any(String) as string });
    expect(wrongSecret.body.access_token).toBeUndefined();

    const granted = await exchange(form);
    expect(granted.body).toMatchObject({
      expires_in: 86_400,
      open_id: tiktok.account.openId,
      refresh_expires_in: expect.any(Number) as number,
      scope: 'user.info.basic,video.publish',
      token_type: 'Bearer',
    });
    expect((await exchange(form)).body).toMatchObject({ error: 'invalid_grant' });

    const first = granted.body as { access_token: string; refresh_token: string };
    const user = await api('/v2/user/info/?fields=open_id,display_name', first.access_token, undefined, 'GET');
    expect(user.body).toMatchObject({ data: { user: { open_id: tiktok.account.openId, display_name: tiktok.account.displayName } }, error: { code: 'ok' } });
    // username needs user.info.profile, which this grant lacks.
    const username = await api('/v2/user/info/?fields=open_id,username', first.access_token, undefined, 'GET');
    expect(username.statusCode).toBe(400);
    expect(username.body.error.code).toBe('scope_permission_missed');

    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    const second = refreshed.body as { access_token: string; refresh_token: string };
    expect(second.refresh_token).toMatch(/^rft\./);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await api('/v2/post/publish/creator_info/query/', second.access_token)).body.error.code).toBe('ok');
    expect((await exchange({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('when a token is expired, unknown or lacks the scope, then the API answers 401 with the reason', async () => {
    const { accessToken } = tiktok.issueTokens({ scopes: ['user.info.basic'] });
    const noScope = await api('/v2/post/publish/creator_info/query/', accessToken);
    expect(noScope.statusCode).toBe(401);
    expect(noScope.body.error.code).toBe('scope_not_authorized');

    const old = tiktok.issueTokens({ accessAgeMs: 86_400_000 + 1 });
    expect((await api('/v2/post/publish/creator_info/query/', old.accessToken)).body.error.code).toBe('access_token_invalid');
    const live = tiktok.issueTokens();
    tiktok.expire(live.accessToken);
    const expired = await api('/v2/post/publish/creator_info/query/', live.accessToken);
    expect(expired.statusCode).toBe(401);
    expect(expired.body.error.code).toBe('access_token_invalid');
  });

  it('when an init breaks the chunk rules, the title limit or the creator’s options, then it is refused and nothing starts', async () => {
    const { accessToken } = tiktok.issueTokens();
    const size = 20 * 1024 * 1024;
    const refusals: Array<[string, unknown, number, string]> = [
      [
        'small video in parts',
        { post_info: postInfo(), source_info: { source: 'FILE_UPLOAD', video_size: 4_000_000, chunk_size: 2_000_000, total_chunk_count: 2 } },
        400,
        'invalid_param',
      ],
      [
        'chunk under 5 MB',
        { post_info: postInfo(), source_info: { source: 'FILE_UPLOAD', video_size: size, chunk_size: 4 * 1024 * 1024, total_chunk_count: 5 } },
        400,
        'invalid_param',
      ],
      [
        'count not rounded down',
        { post_info: postInfo(), source_info: { source: 'FILE_UPLOAD', video_size: size, chunk_size: 6 * 1024 * 1024, total_chunk_count: 4 } },
        400,
        'invalid_param',
      ],
      ['one chunk over 64 MB', { post_info: postInfo(), source_info: wholeSource(70_000_000) }, 400, 'invalid_param'],
      ['title of 2201 UTF-16 runes', { post_info: postInfo({ title: 'x'.repeat(2201) }), source_info: wholeSource(small.length) }, 400, 'invalid_param'],
      ['title of 1101 emoji', { post_info: postInfo({ title: '😀'.repeat(1101) }), source_info: wholeSource(small.length) }, 400, 'invalid_param'],
      [
        'privacy not offered',
        { post_info: postInfo({ privacy_level: 'FOLLOWER_OF_CREATOR' }), source_info: wholeSource(small.length) },
        403,
        'privacy_level_option_mismatch',
      ],
      ['no privacy', { post_info: postInfo({ privacy_level: undefined }), source_info: wholeSource(small.length) }, 403, 'privacy_level_option_mismatch'],
      [
        'pull from URL',
        { post_info: postInfo(), source_info: { source: 'PULL_FROM_URL', video_url: 'https://content.example/v.mp4' } },
        403,
        'url_ownership_unverified',
      ],
    ];
    for (const [why, body, status, code] of refusals) {
      const refused = await initPost(tiktok.issueTokens().accessToken, body);
      expect({ why, status: refused.statusCode, code: refused.body.error.code }).toEqual({ why, status, code });
    }
    // 2200 UTF-16 runes pass; so does a chunked upload by the rules.
    expect((await initPost(accessToken, { post_info: postInfo({ title: 'x'.repeat(2200) }), source_info: wholeSource(small.length) })).body.error.code).toBe(
      'ok',
    );
    const chunked = { source: 'FILE_UPLOAD', video_size: size, chunk_size: 6 * 1024 * 1024, total_chunk_count: 3 };
    expect((await initPost(accessToken, { post_info: postInfo(), source_info: chunked })).body.error.code).toBe('ok');

    tiktok.creator.commentDisabled = true;
    const commentsOn = await initPost(accessToken, { post_info: postInfo(), source_info: wholeSource(small.length) });
    expect(commentsOn.body.error).toMatchObject({ code: 'invalid_param', message: expect.stringContaining('disable_comment') as string });

    const withoutCharset = await got.post(`${tiktok.url}/v2/post/publish/creator_info/query/`, {
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      throwHttpErrors: false,
      responseType: 'json',
    });
    expect(withoutCharset.statusCode).toBe(400);
    expect(tiktok.publishes).toHaveLength(2);
  });

  it('when the app is unaudited or the creator may not post, then creator_info says so and a public post is refused', async () => {
    const { accessToken } = tiktok.issueTokens();
    tiktok.unaudited = true;
    expect((await api('/v2/post/publish/creator_info/query/', accessToken)).body.data.privacy_level_options).toEqual(['SELF_ONLY']);
    const publicPost = await initPost(accessToken, { post_info: postInfo(), source_info: wholeSource(small.length) });
    expect(publicPost.statusCode).toBe(403);
    expect(publicPost.body.error.code).toBe('unaudited_client_can_only_post_to_private_accounts');
    expect((await initPost(accessToken, { post_info: postInfo({ privacy_level: 'SELF_ONLY' }), source_info: wholeSource(small.length) })).statusCode).toBe(200);

    tiktok.creator.canPost = 'spam_risk_too_many_posts';
    // The page: "200 (intentional)".
    const capped = await api('/v2/post/publish/creator_info/query/', accessToken);
    expect(capped.statusCode).toBe(200);
    expect(capped.body.error.code).toBe('spam_risk_too_many_posts');
    const init = await initPost(accessToken, { post_info: postInfo({ privacy_level: 'SELF_ONLY' }), source_info: wholeSource(small.length) });
    expect(init.statusCode).toBe(403);
    expect(init.body.error.code).toBe('spam_risk_too_many_posts');
  });

  it('when a token inits more than 6 times in a minute, then the 7th is refused with 429', async () => {
    const { accessToken } = tiktok.issueTokens();
    const codes: string[] = [];
    for (let attempt = 0; attempt < 7; attempt += 1) {
      const answer = await initPost(accessToken, { post_info: postInfo(), source_info: wholeSource(small.length) });
      codes.push(`${answer.statusCode} ${answer.body.error.code}`);
    }
    expect(codes).toEqual([...Array<string>(6).fill('200 ok'), '429 rate_limit_exceeded']);
    // Another token has its own minute.
    expect((await initPost(tiktok.issueTokens().accessToken, { post_info: postInfo(), source_info: wholeSource(small.length) })).statusCode).toBe(200);
  });

  it('when a video over 5 MB goes up in two chunks, in order, then the status runs to PUBLISH_COMPLETE and one public post is made', async () => {
    tiktok.processingPolls = 2;
    const { accessToken } = tiktok.issueTokens();
    const chunkSize = Math.floor(large.length / 2);
    expect(chunkSize).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    const creator = await api('/v2/post/publish/creator_info/query/', accessToken);
    expect(creator.body.data).toMatchObject({ creator_username: tiktok.account.username, max_video_post_duration_sec: 300 });
    const init = await initPost(accessToken, {
      post_info: postInfo(),
      source_info: { source: 'FILE_UPLOAD', video_size: large.length, chunk_size: chunkSize, total_chunk_count: 2 },
    });
    const { publish_id: publishId, upload_url: uploadUrl } = init.body.data as { publish_id: string; upload_url: string };
    expect(uploadUrl).toMatch(new RegExp(`^${tiktok.url}/upload/\\?upload_id=\\d+&upload_token=`));
    const [firstChunk, lastChunk] = [large.subarray(0, chunkSize), large.subarray(chunkSize)];

    expect((await put(uploadUrl, lastChunk, chunkSize, large.length)).statusCode).toBe(416);
    expect((await statusOf(accessToken, publishId)).status).toBe('PROCESSING_UPLOAD');

    // The answer to the first chunk is lost; the chunk is kept, and sending it again is refused.
    tiktok.dropAnswerOfNextChunk();
    await expect(put(uploadUrl, firstChunk, 0, large.length)).rejects.toThrow();
    expect(await statusOf(accessToken, publishId)).toMatchObject({ status: 'PROCESSING_UPLOAD', uploaded_bytes: chunkSize });
    const repeated = await put(uploadUrl, firstChunk, 0, large.length);
    expect(repeated.statusCode).toBe(416);
    expect(repeated.headers['content-range']).toBe(`bytes 0-${chunkSize - 1}/${large.length}`);

    const last = await put(uploadUrl, lastChunk, chunkSize, large.length);
    expect(last.statusCode).toBe(201);
    const statuses: unknown[] = [];
    for (let poll = 0; poll < 3; poll += 1) statuses.push(await statusOf(accessToken, publishId));
    expect(statuses.map((status) => (status as { status: string }).status)).toEqual(['PROCESSING_UPLOAD', 'PROCESSING_UPLOAD', 'PUBLISH_COMPLETE']);
    expect(tiktok.posts).toHaveLength(1);
    const [post] = tiktok.posts;
    expect(post).toMatchObject({ publishId, title: 'Harbour lights #boats', privacyLevel: 'PUBLIC_TO_EVERYONE' });
    expect(post!.video.equals(large)).toBe(true);
    expect(statuses[2]).toEqual({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [Number(post!.id)], uploaded_bytes: large.length });
    expect(tiktok.publishes[0]!.postId).toBe(post!.id);
    expect((await api('/v2/post/publish/status/fetch/', accessToken, { publish_id: 'v_pub_file~v2-1.1' })).body.error.code).toBe('invalid_publish_id');
  });

  it('when a small video goes up as one chunk, then it is posted, privately without a public id; a short one or no MP4 fails processing', async () => {
    tiktok.processingPolls = 0;
    const { accessToken } = tiktok.issueTokens();
    const upload = async (video: Buffer, privacy = 'SELF_ONLY') => {
      const init = await initPost(accessToken, { post_info: postInfo({ privacy_level: privacy }), source_info: wholeSource(video.length) });
      const { publish_id: publishId, upload_url: uploadUrl } = init.body.data as { publish_id: string; upload_url: string };
      expect((await put(uploadUrl, video, 0, video.length)).statusCode).toBe(201);
      return statusOf(accessToken, publishId);
    };
    expect(await upload(small)).toEqual({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [], uploaded_bytes: small.length });
    expect(tiktok.posts).toHaveLength(1);
    expect(tiktok.publishes[0]!.postId).toBeUndefined();

    expect(await upload(makeVideo({ seconds: 1 }))).toMatchObject({ status: 'FAILED', fail_reason: 'duration_check_failed' });
    expect(await upload(Buffer.from('not a video at all, only words'))).toMatchObject({ status: 'FAILED', fail_reason: 'file_format_check_failed' });
    tiktok.failNextPublish = 'spam_risk_text';
    expect(await upload(small)).toMatchObject({ status: 'FAILED', fail_reason: 'spam_risk_text' });
    expect(tiktok.failNextPublish).toBeUndefined();
    expect(tiktok.posts).toHaveLength(1);
  });

  it('when a scripted failure stands in, then it comes in the endpoint’s own body with the code asked', async () => {
    const { accessToken } = tiktok.issueTokens();
    tiktok.script('init', [{ status: 429, code: 'rate_limit_exceeded', retryAfter: '30' }]);
    const limited = await initPost(accessToken, { post_info: postInfo(), source_info: wholeSource(small.length) });
    expect(limited.statusCode).toBe(429);
    expect(limited.body).toMatchObject({ data: {}, error: { code: 'rate_limit_exceeded' } });
    tiktok.script('token', [{ status: 503 }]);
    expect((await exchange({ grant_type: 'refresh_token', refresh_token: 'rft.x' })).body).toMatchObject({ error: 'temporarily_unavailable' });
  });
});
