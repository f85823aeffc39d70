import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unknownNotRetriedDetail } from '../../src/domain/publishing/attempt-outcome.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { startDiscordServer, type DiscordServer } from '../fakes/discord-server.ts';
import { startTelegramServer, type TelegramServer } from '../fakes/telegram-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { publishAndWait } from '../support/published-targets.ts';
import { fetchImage } from '../support/images.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Telegram and Discord as platforms of the service, through the API with the real worker on the Temporal dev server
// and each platform's fake: connected (the credentials checked, sealed, never shown), published to with an image, a
// rate limit waited out for exactly the time the platform announced, and a refusal that is final.

type Connection = Schemas['SocialConnection'];
type Target = Schemas['PublishTarget'];
type Attempt = Target['attempts'][number];

let telegram: TelegramServer;
let discord: DiscordServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
// Made in beforeAll, through the API, so that each test stands alone.
let telegramConnection: { status: number; body: Connection };
let discordConnection: { status: number; body: Connection };
let telegramConnectionId: string;
let discordConnectionId: string;

beforeAll(async () => {
  [telegram, discord] = await Promise.all([startTelegramServer(), startDiscordServer()]);
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { TELEGRAM_API_URL: telegram.url, DISCORD_API_URL: discord.apiUrl, SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '10' },
    project: 'Telegram and Discord',
  }));
  telegramConnection = await workspace.client.post<Connection>('/social-connections', {
    platform: 'telegram',
    botToken: telegram.token,
    chatId: '@harbour_news',
  });
  discordConnection = await workspace.client.post<Connection>('/social-connections', { platform: 'discord', webhookUrl: discord.webhookUrl });
  telegramConnectionId = telegramConnection.body.id;
  discordConnectionId = discordConnection.body.id;
});
afterAll(async () => {
  await app?.stop();
  await Promise.all([telegram?.close(), discord?.close()]);
});

/** A post with a generated image; its id and the image's bytes. */
async function postWithImage(title: string): Promise<{ id: string; image: Buffer }> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  const post = await workspace.client.get<Schemas['Post']>(`/posts/${id}`);
  return { id, image: (await fetchImage(post.body.imageUrl!)).bytes };
}

const targetsOf = async (postId: string) => (await workspace.client.get<Target[]>(`/posts/${postId}/publish-targets`)).body;

/** Publishes the post to the connection now and answers its target once the publication has ended. */
async function publish(postId: string, connectionId: string): Promise<Target> {
  return (await publishAndWait(workspace.client, postId, { connectionIds: [connectionId] }))[0]!;
}

/**
 * Publishes the post while the platform rate-limits the first attempt, watching its record as it appears: answers
 * the rate-limited attempt, when the test first saw it, and the target once Published.
 */
async function publishThroughARateLimit(postId: string, connectionId: string): Promise<{ rateLimited: Attempt; seenAt: number; target: Target }> {
  const publishing = workspace.client.post(`/posts/${postId}/publish-social`, { connectionIds: [connectionId] });
  let rateLimited: Attempt | undefined;
  await expect
    .poll(
      async () => {
        rateLimited = (await targetsOf(postId))[0]?.attempts.find((attempt) => attempt.outcome === 'rate_limited');
        return rateLimited;
      },
      { timeout: 30_000, interval: 50 },
    )
    .toBeDefined();
  const seenAt = Date.now();
  expect([200, 202]).toContain((await publishing).status);
  await expect.poll(async () => (await targetsOf(postId))[0]?.status, { timeout: 60_000, interval: 200 }).toBe('Published');
  return { rateLimited: rateLimited!, seenAt, target: (await targetsOf(postId))[0]! };
}

/**
 * The rate-limited attempt's next attempt is its failure plus the announced wait: the failure came after the
 * platform received the request and before the test saw the record, so `nextAttemptAt − wait` lies between them;
 * and the next attempt came no sooner.
 */
function expectWaitedAsAnnounced(rateLimited: Attempt, waitMs: number, bounds: { requestAt: Date; seenAt: number }, next: Attempt) {
  const failedAt = Date.parse(rateLimited.nextAttemptAt!) - waitMs;
  expect(failedAt).toBeGreaterThanOrEqual(bounds.requestAt.getTime());
  expect(failedAt).toBeLessThanOrEqual(bounds.seenAt);
  expect(Date.parse(next.at)).toBeGreaterThanOrEqual(Date.parse(rateLimited.nextAttemptAt!));
}

describe('Telegram', () => {
  it('when a bot and a channel are connected, then getMe and getChat check them, the channel is the account, and the token is never shown', async () => {
    const created = telegramConnection;
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: 'telegram', accountName: '@harbour_news', serverUrl: telegram.url, status: 'active' });
    const listed = await workspace.client.get<Connection[]>('/social-connections');
    for (const body of [JSON.stringify(created.body), JSON.stringify(listed.body)]) expect(body).not.toContain(telegram.token.split(':')[1]);
  });

  it('when the chat is unknown to the bot or the token is wrong, then 400 names the field at fault with Telegram words', async () => {
    const unknownChat = await workspace.client.post<Schemas['Problem']>('/social-connections', {
      platform: 'telegram',
      botToken: telegram.token,
      chatId: '@nowhere_here',
    });
    expect(unknownChat.status).toBe(400);
    expect(unknownChat.body.errors).toEqual([{ location: 'body', path: '/chatId', message: 'Telegram refused the chat (400): Bad Request: chat not found' }]);
    const wrongToken = await workspace.client.post<Schemas['Problem']>('/social-connections', {
      platform: 'telegram',
      botToken: `${telegram.bot.id}:not-the-secret`,
      chatId: '@harbour_news',
    });
    expect(wrongToken.status).toBe(400);
    expect(wrongToken.body.errors?.[0]).toMatchObject({ path: '/botToken', message: 'Telegram rejected the bot token (401): Unauthorized' });
  });

  it('when a post with an image is published, then Telegram gets the photo with the title as caption: Published, the message id and its t.me link kept', async () => {
    const { id, image } = await postWithImage('Harbour lights on Telegram');
    const target = await publish(id, telegramConnectionId);
    const message = telegram.messages.find((candidate) => candidate.caption === 'Harbour lights on Telegram');
    expect(message?.photo?.bytes.equals(image)).toBe(true);
    expect(message?.parts.find((part) => part.name === 'chat_id')?.value).toBe('@harbour_news');
    expect(target).toMatchObject({
      status: 'Published',
      externalPostId: String(message?.messageId),
      externalUrl: `https://t.me/harbour_news/${message?.messageId}`,
    });
  });

  it(
    'when Telegram answers 429 with retry_after, then the next attempt is due that long after the failure, and it publishes',
    { timeout: 90_000 },
    async () => {
      const { id } = await postWithImage('Rate-limited on Telegram');
      telegram.script('sendPhoto', [{ status: 429, retryAfterSeconds: 3 }]);
      const before = telegram.requests.length;
      const { rateLimited, seenAt, target } = await publishThroughARateLimit(id, telegramConnectionId);
      const sendPhotos = telegram.requests.slice(before).filter((request) => request.botMethod === 'sendPhoto');
      expect(sendPhotos).toHaveLength(2);
      expect(target.attempts.map(({ outcome }) => outcome)).toEqual(['rate_limited', 'published']);
      expectWaitedAsAnnounced(rateLimited, 3_000, { requestAt: sendPhotos[0]!.receivedAt, seenAt }, target.attempts[1]!);
      expect(telegram.messages.filter((message) => message.caption === 'Rate-limited on Telegram')).toHaveLength(1);
    },
  );

  it('when Telegram refuses the photo, then the target fails after one attempt with the words Telegram gave', async () => {
    const { id } = await postWithImage('Refused on Telegram');
    telegram.script('sendPhoto', [{ status: 400, description: 'Bad Request: not enough rights to send photos to the chat' }]);
    const target = await publish(id, telegramConnectionId);
    const detail = 'Telegram refused the photo (400): Bad Request: not enough rights to send photos to the chat';
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('not enough rights') });
    expect(target.attempts).toEqual([{ at: expect.any(String), outcome: 'refused', detail, nextAttemptAt: null, answers: null }]);
  });
});

describe('Telegram and Discord: a lost answer, and a connection that stops working', () => {
  it('when the answer to a message is lost after the platform made it, then it is not sent again: one message, the target Failed with the outcome unknown', async () => {
    for (const [platform, connectionId] of [
      ['telegram', telegramConnectionId],
      ['discord', discordConnectionId],
    ] as const) {
      const { id } = await postWithImage(`Lost answer on ${platform}`);
      if (platform === 'telegram') telegram.script('sendPhoto', [{ dropped: true }]);
      else discord.script('execute_webhook', [{ dropped: true }]);
      const target = await publish(id, connectionId);
      expect(target.status).toBe('Failed');
      expect(target.attempts).toEqual([{ at: expect.any(String), outcome: 'unknown', detail: unknownNotRetriedDetail, nextAttemptAt: null, answers: null }]);
      const made =
        platform === 'telegram'
          ? telegram.messages.filter((message) => message.caption === `Lost answer on ${platform}`)
          : discord.messages.filter((message) => message.content === `Lost answer on ${platform}`);
      expect(made).toHaveLength(1);
    }
  });

  it("when a Telegram chat or a Discord webhook is gone, then verify marks the connection needs_reauth with the platform's words, and no token in them", async () => {
    const chat = { id: -1_005_555_555_555, type: 'channel' as const, title: 'Closing soon', username: 'closing_soon' };
    telegram.chats.push(chat);
    const webhook = { ...discord.webhook, id: '1180000000000000042', name: 'Closing soon' };
    discord.webhooks.push(webhook);
    const toTelegram = await workspace.client.post<Connection>('/social-connections', {
      platform: 'telegram',
      botToken: telegram.token,
      chatId: '@closing_soon',
    });
    const toDiscord = await workspace.client.post<Connection>('/social-connections', {
      platform: 'discord',
      webhookUrl: `${discord.apiUrl}/webhooks/${webhook.id}/${webhook.token}`,
    });
    expect([toTelegram.status, toDiscord.status]).toEqual([201, 201]);
    telegram.chats.splice(telegram.chats.indexOf(chat), 1);
    discord.webhooks.splice(discord.webhooks.indexOf(webhook), 1);
    telegram.echoTokenInErrors = true;
    try {
      const telegramChecked = await workspace.client.post<Connection>(`/social-connections/${toTelegram.body.id}/verify`);
      const discordChecked = await workspace.client.post<Connection>(`/social-connections/${toDiscord.body.id}/verify`);
      expect(telegramChecked.body).toMatchObject({
        status: 'needs_reauth',
        lastError: expect.stringMatching(/^Telegram refused the chat \(400\): Bad Request: chat not found/),
      });
      expect(telegramChecked.body.lastError).toContain('[redacted]');
      expect(discordChecked.body).toMatchObject({ status: 'needs_reauth', lastError: 'Discord refused the webhook (404): Unknown Webhook (code 10015)' });
      const everything = JSON.stringify([telegramChecked.body, discordChecked.body, (await workspace.client.get('/social-connections')).body]);
      expect(everything).not.toContain(telegram.token.split(':')[1]);
      expect(everything).not.toContain(webhook.token);
    } finally {
      telegram.echoTokenInErrors = false;
    }
  });

  it('when a webhook is gone, comes back and is gone again, then each refusal records its own connection.expired', async () => {
    const webhook = { ...discord.webhook, id: '1180000000000000043', name: 'Comes and goes' };
    discord.webhooks.push(webhook);
    const created = await workspace.client.post<Connection>('/social-connections', {
      platform: 'discord',
      webhookUrl: `${discord.apiUrl}/webhooks/${webhook.id}/${webhook.token}`,
    });
    expect(created.status).toBe(201);
    const verify = async () => (await workspace.client.post<Connection>(`/social-connections/${created.body.id}/verify`)).body.status;
    const expired = () => app.api.services.orm.em.fork().count(WorkspaceEvent, { type: 'connection.expired', details: { connectionId: created.body.id } });

    discord.webhooks.splice(discord.webhooks.indexOf(webhook), 1);
    expect(await verify()).toBe('needs_reauth');
    discord.webhooks.push(webhook);
    expect(await verify()).toBe('active');
    discord.webhooks.splice(discord.webhooks.indexOf(webhook), 1);
    expect(await verify()).toBe('needs_reauth');
    expect(await expired()).toBe(2);
  });
});

describe('a dry run', () => {
  it('when a long text is previewed with the image, then Telegram shows a caption cut to 1,024 and Discord content cut to 2,000, with text_too_long, and nothing is sent', async () => {
    const { id } = await postWithImage('Dry run on the chat platforms');
    const text = 'Lanterns sway over the harbour wall tonight. '.repeat(60);
    const [telegramBefore, discordBefore] = [telegram.messages.length, discord.messages.length];
    const response = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, {
      connectionIds: [telegramConnectionId, discordConnectionId],
      overrides: { [telegramConnectionId]: { text }, [discordConnectionId]: { text } },
      dryRun: true,
    });
    expect(response.status).toBe(200);
    const [toTelegram, toDiscord] = response.body;
    expect(toTelegram).toMatchObject({ platform: 'telegram', image: { type: 'image/png' }, problems: [{ code: 'text_too_long' }] });
    expect(toTelegram!.count).toBeLessThanOrEqual(1_024);
    expect(toTelegram!.count).toBeGreaterThan(1_000);
    expect(toTelegram!.problems[0]!.message).toBe(
      `The text would be shortened from ${text.length} to ${toTelegram!.count} characters (the platform takes at most 1024).`,
    );
    expect(toDiscord).toMatchObject({ platform: 'discord', image: { type: 'image/png' }, problems: [{ code: 'text_too_long' }] });
    expect(toDiscord!.count).toBeLessThanOrEqual(2_000);
    expect(toDiscord!.count).toBeGreaterThan(1_950);
    expect([telegram.messages.length, discord.messages.length]).toEqual([telegramBefore, discordBefore]);
  });
});

describe('Discord', () => {
  it('when a webhook is connected, then it is read from Discord, named as the account, and its URL (with its token) is never shown', async () => {
    const created = discordConnection;
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: 'discord', accountName: 'Harbour news', serverUrl: discord.apiUrl, status: 'active' });
    const listed = await workspace.client.get<Connection[]>('/social-connections');
    for (const body of [JSON.stringify(created.body), JSON.stringify(listed.body)]) expect(body).not.toContain(discord.webhook.token);
  });

  it('when the URL is not a webhook of DISCORD_API_URL, then 400 names /webhookUrl, and Discord is not asked', async () => {
    const before = discord.requests.length;
    const response = await workspace.client.post<Schemas['Problem']>('/social-connections', {
      platform: 'discord',
      webhookUrl: `https://evil.example/api/webhooks/${discord.webhook.id}/${discord.webhook.token}`,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]).toMatchObject({ location: 'body', path: '/webhookUrl' });
    expect(JSON.stringify(response.body)).not.toContain(discord.webhook.token);
    expect(discord.requests.length).toBe(before);
  });

  it('when a post with an image is published, then Discord gets payload_json with the alt text and the file: Published, the message id kept', async () => {
    const { id, image } = await postWithImage('Harbour lights on Discord');
    const target = await publish(id, discordConnectionId);
    const message = discord.messages.find((candidate) => candidate.content === 'Harbour lights on Discord');
    expect(message?.parts.map((part) => part.name)).toEqual(['payload_json', 'files[0]']);
    expect(message?.attachments).toEqual([
      { id: expect.any(String), filename: 'image.png', description: 'Boats at night', contentType: 'image/png', bytes: image },
    ]);
    expect(target).toMatchObject({ status: 'Published', externalPostId: message?.id });
  });

  it('when a long text is published with thread: true, then Discord, which has no threads, gets one message shortened to 2,000 as the dry run said', async () => {
    const { id } = await postWithImage('Thread on Discord');
    const text = 'The harbour wakes before the town does. '.repeat(60).trimEnd();
    const request = { connectionIds: [discordConnectionId], overrides: { [discordConnectionId]: { text } }, thread: true };
    const [preview] = (await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, { ...request, dryRun: true })).body;
    expect(preview!.problems.map((problem) => problem.code)).toEqual(['thread_unsupported']);
    const before = discord.messages.length;
    expect([200, 202]).toContain((await workspace.client.post(`/posts/${id}/publish-social`, request)).status);
    await expect.poll(async () => (await targetsOf(id))[0]?.status, { timeout: 60_000, interval: 200 }).toBe('Published');
    const sent = discord.messages.slice(before);
    expect(sent.map((message) => message.content)).toEqual([preview!.text]);
    expect(Array.from(preview!.text).length).toBeLessThanOrEqual(2_000);
    expect(preview!.text.endsWith('…')).toBe(true);
  });

  it('when Discord answers 429 with retry_after, then the next attempt is due that long after the failure, and it publishes', { timeout: 90_000 }, async () => {
    const { id } = await postWithImage('Rate-limited on Discord');
    discord.script('execute_webhook', [{ status: 429, retryAfterSeconds: 2.5 }]);
    const before = discord.requests.length;
    const { rateLimited, seenAt, target } = await publishThroughARateLimit(id, discordConnectionId);
    const executes = discord.requests.slice(before).filter((request) => request.method === 'POST');
    expect(executes).toHaveLength(2);
    expect(target.attempts.map(({ outcome }) => outcome)).toEqual(['rate_limited', 'published']);
    expectWaitedAsAnnounced(rateLimited, 2_500, { requestAt: executes[0]!.receivedAt, seenAt }, target.attempts[1]!);
    expect(discord.messages.filter((message) => message.content === 'Rate-limited on Discord')).toHaveLength(1);
  });

  it('when Discord refuses the message, then the target fails after one attempt with the words Discord gave', async () => {
    const { id } = await postWithImage('Refused on Discord');
    discord.script('execute_webhook', [{ status: 400, message: 'Cannot send messages in a voice channel', code: 50008 }]);
    const target = await publish(id, discordConnectionId);
    const detail = 'Discord refused the message (400): Cannot send messages in a voice channel (code 50008)';
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('voice channel') });
    expect(target.attempts).toEqual([{ at: expect.any(String), outcome: 'refused', detail, nextAttemptAt: null, answers: null }]);
  });
});
