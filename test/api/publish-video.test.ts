import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startDiscordServer, type DiscordServer } from '../fakes/discord-server.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startTelegramServer, type TelegramServer } from '../fakes/telegram-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { publishAndWait } from '../support/published-targets.ts';
import { eventually } from '../support/eventually.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// A post's video, published through the API with the real worker on the Temporal dev server: made by a video job,
// chosen by default where the platform takes video (its image elsewhere, or when asked), streamed to each platform's
// fake, Mastodon's processing waited out between attempts, and the dry run telling all of it first.

type Preview = Schemas['PublishPreview'];

let mastodon: MastodonServer;
let telegram: TelegramServer;
let discord: DiscordServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
const connections: Record<'mastodon' | 'telegram' | 'discord', string> = { mastodon: '', telegram: '', discord: '' };
/** A 9:16 post with a finished video, and that video's bytes. */
let videoPost: { id: string; video: Buffer };

beforeAll(async () => {
  [mastodon, telegram, discord] = await Promise.all([startMastodonServer(), startTelegramServer(), startDiscordServer()]);
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { TELEGRAM_API_URL: telegram.url, DISCORD_API_URL: discord.apiUrl, SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '20' },
    project: 'Video',
  }));
  const connect = async (body: object) => (await workspace.client.post<{ id: string }>('/social-connections', body)).body.id;
  connections.mastodon = await connect({ platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token });
  connections.telegram = await connect({ platform: 'telegram', botToken: telegram.token, chatId: '@harbour_news' });
  connections.discord = await connect({ platform: 'discord', webhookUrl: discord.webhookUrl });
  videoPost = await postWithVideo('Harbour lights, moving');
}, 180_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([mastodon?.close(), telegram?.close(), discord?.close()]);
});

async function generatedPost(title: string): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`, { format: '9:16' })).status).toBe(200);
  return id;
}

/** A generated 9:16 post whose video job has finished, and the video's bytes as stored. */
async function postWithVideo(title: string): Promise<{ id: string; video: Buffer }> {
  const id = await generatedPost(title);
  const started = await fetch(`${app.url}/dashboard/api/posts/${id}/video`, { method: 'POST', headers: { authorization: `Bearer ${workspace.key}` } });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  await eventually(async () => {
    expect((await workspace.client.get<Schemas['VideoJob']>(`/video/jobs/${jobId}`)).body.status).toBe('done');
  }, 120_000);
  const presigned = await workspace.client.get<Schemas['VideoPresignedUrl']>(`/video/presign/${id}`);
  return { id, video: Buffer.from(await (await fetch(presigned.body.url)).arrayBuffer()) };
}

const publish = (postId: string, body: object) => publishAndWait(workspace.client, postId, body);

// A test that makes a video waits for its job (up to two minutes on a busy machine).
describe('publishing a post with a video', { timeout: 180_000 }, () => {
  it('when the dry run is asked, then each platform that takes video is shown the video as stored, with its facts, and no problem', async () => {
    const response = await workspace.client.post<Preview[]>(`/posts/${videoPost.id}/publish-social`, {
      connectionIds: [connections.mastodon, connections.telegram, connections.discord],
      dryRun: true,
    });
    expect(response.status).toBe(200);
    const video = { type: 'video/mp4', bytes: videoPost.video.length, durationMs: 6_000, width: 1080, height: 1920 };
    for (const preview of response.body) expect(preview).toMatchObject({ media: 'video', video, image: null, problems: [] });
  });

  it('when published without a media choice, then the video goes to all three, Mastodon processing it between attempts, each attempt in the history', async () => {
    const targets = await publish(videoPost.id, { connectionIds: [connections.mastodon, connections.telegram, connections.discord] });
    for (const target of targets) expect(target).toMatchObject({ status: 'Published', errorMessage: null });

    const onMastodon = mastodon.statuses.find((status) => status.text === 'Harbour lights, moving');
    expect(onMastodon?.media.map((media) => media.contentType)).toEqual(['video/mp4']);
    expect(onMastodon?.media[0]?.bytes.equals(videoPost.video)).toBe(true);
    expect(mastodon.media.filter((media) => media.bytes.equals(videoPost.video))).toHaveLength(1);
    const mastodonTarget = targets.find((target) => target.connectionId === connections.mastodon)!;
    // Uploaded (202), still processing when checked (206), then ready and posted.
    expect(mastodonTarget.attempts.map((attempt) => attempt.outcome)).toEqual(['processing', 'processing', 'published']);
    expect(mastodonTarget.attempts[0]).toMatchObject({
      outcome: 'processing',
      detail: expect.stringMatching(/^Uploaded the video \(\d+\.\d MB\); Mastodon is processing it\.$/),
    });
    // Each check came after the wait the attempt before announced (a durable timer in the workflow).
    for (const [index, attempt] of mastodonTarget.attempts.slice(1).entries()) {
      expect(Date.parse(attempt.at)).toBeGreaterThanOrEqual(Date.parse(mastodonTarget.attempts[index]!.nextAttemptAt!));
    }

    const onTelegram = telegram.messages.find((message) => message.caption === 'Harbour lights, moving');
    expect(onTelegram?.video).toMatchObject({ contentType: 'video/mp4', duration: 6, width: 1080, height: 1920 });
    expect(onTelegram?.video?.bytes.equals(videoPost.video)).toBe(true);
    const onDiscord = discord.messages.find((message) => message.content === 'Harbour lights, moving');
    expect(onDiscord?.attachments.map((attachment) => attachment.filename)).toEqual(['video.mp4']);
  });

  it('when a connection is asked for the image, then it gets the photo while the others get the video', async () => {
    const post = await postWithVideo('Harbour lights, still');
    const targets = await publish(post.id, {
      connectionIds: [connections.telegram, connections.discord],
      overrides: { [connections.telegram]: { media: 'image' } },
    });
    for (const target of targets) expect(target.status).toBe('Published');
    expect(telegram.messages.find((message) => message.caption === 'Harbour lights, still')).toMatchObject({ photo: { contentType: 'image/png' } });
    expect(discord.messages.find((message) => message.content === 'Harbour lights, still')?.attachments[0]?.filename).toBe('video.mp4');
  });

  it('when the video is asked for a post that has none, then the dry run says so and the publication fails that target in a sentence', async () => {
    const id = await generatedPost('Harbour lights, no video');
    const preview = await workspace.client.post<Preview[]>(`/posts/${id}/publish-social`, {
      connectionIds: [connections.telegram],
      media: 'video',
      dryRun: true,
    });
    expect(preview.body[0]).toMatchObject({ media: 'none', video: null, image: null, problems: [{ code: 'video_not_ready' }] });
    const [target] = await publish(id, { connectionIds: [connections.telegram], media: 'video' });
    expect(target).toMatchObject({
      status: 'Failed',
      errorMessage: 'The post has no finished video: make one (Video, in the dashboard) and publish again.',
    });
    expect(telegram.messages.some((message) => message.caption === 'Harbour lights, no video')).toBe(false);
  });
});
