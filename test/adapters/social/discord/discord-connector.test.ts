import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordConnector } from '../../../../src/adapters/social/discord/discord-connector.ts';
import {
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type DiscordCredentials,
  type SocialConnector,
  type SocialPost,
} from '../../../../src/adapters/social/social-connector.ts';
import { startDiscordServer, type DiscordServer } from '../../../fakes/discord-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let discord: DiscordServer;
let connector: SocialConnector;
let png: Buffer;

function credentials(webhookUrl = discord.webhookUrl): DiscordCredentials {
  return { platform: 'discord', webhookUrl };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: `Boats at dawn ${randomUUID()}`, idempotencyKey: randomUUID(), ...overrides };
}

/** Everything an error shows: its message, its stack, and what serialising it gives. */
function everythingIn(error: Error): string {
  return [String(error), error.stack ?? '', JSON.stringify(error), (error as { reason?: string }).reason ?? ''].join('\n');
}

beforeAll(async () => {
  discord = await startDiscordServer();
  connector = createDiscordConnector({ allowPrivateNetworks: true, apiUrl: discord.apiUrl, timeoutMs: 2_000 });
  png = await makeImage('png');
});
beforeEach(() => {
  discord.requests.length = 0;
});
afterAll(() => discord?.close());

describe('Discord connector', () => {
  it("when the webhook is checked, then its name and id are the account, read from Discord's versioned API", async () => {
    await expect(connector.verify(credentials())).resolves.toEqual({ accountName: 'Harbour news', accountId: discord.webhook.id, serverUrl: discord.apiUrl });
    expect(discord.requests.map(({ method, path }) => [method, path])).toEqual([['GET', `/api/v10/webhooks/${discord.webhook.id}/${discord.webhook.token}`]]);
  });

  it('when the URL is not a webhook of DISCORD_API_URL, then it is refused before anything is sent, naming what it must be and not what was given', async () => {
    const given = [
      `https://elsewhere.example/api/webhooks/${discord.webhook.id}/${discord.webhook.token}`,
      `${discord.apiUrl}/webhooks/${discord.webhook.id}`,
      `${discord.apiUrl}/webhooks/${discord.webhook.id}/${discord.webhook.token}?thread_id=1`,
      `${discord.apiUrl}/channels/${discord.webhook.id}/${discord.webhook.token}`,
    ];
    for (const url of given) {
      const error = await failureOf(connector.verify(credentials(url)), SocialRejectedError);
      expect(error).toMatchObject({
        about: 'server',
        reason: `The webhook URL must be ${discord.apiUrl}/webhooks/<id>/<token>, as Discord's Copy Webhook URL gives it`,
      });
      expect(everythingIn(error)).not.toContain(discord.webhook.token);
    }
    expect(discord.requests).toEqual([]);
  });

  it('when the webhook was deleted, then the refusal says so in Discord words', async () => {
    const other = { ...discord.webhook, id: '1180000000000000001' };
    const error = await failureOf(connector.verify(credentials(`${discord.apiUrl}/webhooks/${other.id}/${other.token}`)), SocialRejectedError);
    expect(error.reason).toBe('Discord refused the webhook (404): Unknown Webhook (code 10015)');
  });

  it('when a post has no image, then it goes as JSON content with wait=true and no mentions acted on, and the message id is kept', async () => {
    const post = postWith({ text: `@everyone the tide is in ${randomUUID()}` });
    const published = await connector.publish(credentials(), post);
    const sent = discord.messages.at(-1)!;
    expect(sent).toMatchObject({ content: post.text, attachments: [], parts: [], payload: { allowed_mentions: { parse: [] } } });
    expect(published).toEqual({ externalPostId: sent.id });
    expect(discord.requests.at(-1)!.query.get('wait')).toBe('true');
  });

  it('when a post has an image, then the request is multipart: payload_json describing the attachment with the alt text, then the file', async () => {
    const post = postWith({ image: { bytes: png, contentType: 'image/png', alt: 'Boats at dawn, seen from the pier' } });
    await connector.publish(credentials(), post);
    const sent = discord.messages.at(-1)!;
    expect(sent.parts.map((part) => part.name)).toEqual(['payload_json', 'files[0]']);
    expect(sent.payload).toEqual({
      content: post.text,
      allowed_mentions: { parse: [] },
      attachments: [{ id: '0', filename: 'image.png', description: 'Boats at dawn, seen from the pier' }],
    });
    expect(sent.attachments).toEqual([
      { id: expect.any(String), filename: 'image.png', description: 'Boats at dawn, seen from the pier', contentType: 'image/png', bytes: png },
    ]);
  });

  it('when a post has a video, then the file is streamed as the attachment, described by the alt text; in a forum it is sent whole again with the thread name', async () => {
    const mp4 = makeVideo();
    const post = postWith({ video: socialVideoOf(mp4, { alt: 'Lights over the quay' }) });
    await connector.publish(credentials(), post);
    const sent = discord.messages.at(-1)!;
    expect(sent.payload.attachments).toEqual([{ id: '0', filename: 'video.mp4', description: 'Lights over the quay' }]);
    expect(sent.attachments).toEqual([
      { id: expect.any(String), filename: 'video.mp4', description: 'Lights over the quay', contentType: 'video/mp4', bytes: mp4 },
    ]);

    discord.webhook.channelType = 15;
    try {
      await connector.publish(credentials(), postWith({ video: socialVideoOf(mp4) }));
      expect(discord.messages.at(-1)!.attachments[0]!.bytes.equals(mp4)).toBe(true);
    } finally {
      discord.webhook.channelType = 0;
    }
  });

  it('when the video is over 10 MiB, then Discord refuses it for good (40005), in its words', async () => {
    const mp4 = makeVideo();
    const large = Buffer.concat([mp4, Buffer.alloc(10 * 1024 * 1024 - mp4.length + 1)]);
    const error = await failureOf(connector.publish(credentials(), postWith({ video: socialVideoOf(large) })), SocialRejectedError);
    expect(error.reason).toBe('Discord refused the message (413): Request entity too large (code 40005)');
  });

  it.each([
    ['a forum', 15 as const],
    ['a media channel', 16 as const],
  ])(
    "when the webhook is %s's, then the message starts a thread named after the post's first line, once Discord refused it without one",
    async (_kind, channelType) => {
      discord.webhook.channelType = channelType;
      try {
        const before = discord.messages.length;
        const post = postWith({
          text: `${'Harbour lights tonight '.repeat(6)}\nThe boats come in at dusk.`,
          image: { bytes: png, contentType: 'image/png', alt: 'Boats at dusk' },
        });
        const published = await connector.publish(credentials(), post);
        expect(discord.messages).toHaveLength(before + 1);
        const sent = discord.messages.at(-1)!;
        expect(published).toEqual({ externalPostId: sent.id });
        expect(sent.payload.thread_name).toBe(`${'Harbour lights tonight '.repeat(6).slice(0, 99).trimEnd()}…`);
        expect(Array.from(sent.payload.thread_name as string).length).toBeLessThanOrEqual(100);
        expect(sent.attachments).toHaveLength(1);
        // The first request, without a thread name, was refused and made nothing.
        expect(discord.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
      } finally {
        discord.webhook.channelType = 0;
      }
    },
  );

  it('when the text is long, then the content is cut to 2,000, as the preview shows', async () => {
    const text = 'The harbour wakes. '.repeat(150);
    const preview = await connector.preview({ text });
    await connector.publish(credentials(), postWith({ text }));
    const content = discord.messages.at(-1)!.content;
    expect(content).toBe(preview.text);
    expect(Array.from(content).length).toBeLessThanOrEqual(2_000);
    expect(preview.count).toBe(Array.from(content).length);
  });

  it("when Discord answers 429, then the failure is a rate limit with the body's retry_after (seconds, a fraction)", async () => {
    discord.script('execute_webhook', [{ status: 429, retryAfterSeconds: 2.345 }]);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(2_345);
    expect(error.message).toBe('Discord rate limit reached (429): You are being rate limited.');
  });

  it('when Discord refuses the message, then the refusal is final and carries its words', async () => {
    discord.script('execute_webhook', [{ status: 403, message: 'Missing Permissions', code: 50013 }]);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRejectedError);
    expect(error.reason).toBe('Discord refused the webhook (403): Missing Permissions (code 50013)');
  });

  it('when Discord fails or its answer to a message is lost, then it is an outage, or an unknown outcome', async () => {
    discord.script('execute_webhook', [{ status: 502 }, { dropped: true }]);
    await failureOf(connector.publish(credentials(), postWith()), SocialUnavailableError);
    await failureOf(connector.publish(credentials(), postWith()), SocialOutcomeUnknownError);
  });

  it('when anything fails, then no error carries the webhook token', async () => {
    const { token } = discord.webhook;
    discord.script('execute_webhook', [{ status: 400, message: `Invalid Form Body for ${token}`, code: 50035 }, { delayMs: 5_000 }]);
    const guarded = createDiscordConnector({ allowPrivateNetworks: false, apiUrl: discord.apiUrl });
    const failures = [
      await failureOf(connector.publish(credentials(), postWith())),
      await failureOf(connector.publish(credentials(), postWith())),
      await failureOf(guarded.verify(credentials())),
      await failureOf(connector.verify(credentials(`${discord.apiUrl}/webhooks/${discord.webhook.id}/wrong-${token}`))),
    ];
    expect(failures.map((error) => error.constructor.name)).toEqual([
      'SocialRejectedError',
      'SocialOutcomeUnknownError',
      'SocialRejectedError',
      'SocialRejectedError',
    ]);
    expect((failures[0] as SocialRejectedError).reason).toBe('Discord refused the message (400): Invalid Form Body for [redacted] (code 50035)');
    for (const error of failures) expect(everythingIn(error)).not.toContain(token);
  });
});
