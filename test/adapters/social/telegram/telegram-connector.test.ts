import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
  type SocialConnector,
  type SocialPost,
  type TelegramCredentials,
} from '../../../../src/adapters/social/social-connector.ts';
import { createTelegramConnector } from '../../../../src/adapters/social/telegram/telegram-connector.ts';
import { closedPort } from '../../../fakes/closed-port.ts';
import { startTelegramServer, type TelegramServer } from '../../../fakes/telegram-server.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';

let telegram: TelegramServer;
let connector: SocialConnector;
let png: Buffer;

function credentials(overrides: Partial<TelegramCredentials> = {}): TelegramCredentials {
  return { platform: 'telegram', botToken: telegram.token, chatId: '@harbour_news', ...overrides };
}

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: `Boats at dawn ${randomUUID()}`, idempotencyKey: randomUUID(), ...overrides };
}

/** Everything an error shows: its message, its stack, and what serialising it gives. */
function everythingIn(error: Error): string {
  return [String(error), error.stack ?? '', JSON.stringify(error), (error as { reason?: string }).reason ?? ''].join('\n');
}

beforeAll(async () => {
  telegram = await startTelegramServer();
  connector = createTelegramConnector({ allowPrivateNetworks: true, apiUrl: telegram.url, timeoutMs: 2_000 });
  png = await makeImage('png');
});
beforeEach(() => {
  telegram.requests.length = 0;
  telegram.echoTokenInErrors = false;
});
afterAll(() => telegram?.close());

describe('Telegram connector', () => {
  it('when the bot and the chat are checked, then getMe and getChat answer the chat as the account and the API as the server', async () => {
    await expect(connector.verify(credentials())).resolves.toEqual({ accountName: '@harbour_news', accountId: '-1001234567890', serverUrl: telegram.url });
    expect(telegram.requests.map((request) => request.botMethod)).toEqual(['getMe', 'getChat']);
    await expect(connector.verify(credentials({ chatId: '-1009876543210' }))).resolves.toMatchObject({ accountName: 'Harbour staff' });
  });

  it('when the chat is unknown to the bot, then the refusal is about the chat, in Telegram words', async () => {
    const error = await failureOf(connector.verify(credentials({ chatId: '@nowhere_here' })), SocialRejectedError);
    expect(error).toMatchObject({ about: 'destination', reason: 'Telegram refused the chat (400): Bad Request: chat not found' });
  });

  it('when the bot token is unknown, then the refusal is about the credentials', async () => {
    const error = await failureOf(connector.verify(credentials({ botToken: `${telegram.bot.id}:not-the-secret` })), SocialRejectedError);
    expect(error).toMatchObject({ about: 'credentials', reason: 'Telegram rejected the bot token (401): Unauthorized' });
  });

  it('when a post has no image, then it goes as a message with sendMessage, its id kept and its t.me link made for the public channel', async () => {
    const post = postWith();
    const published = await connector.publish(credentials(), post);
    const sent = telegram.messages.at(-1)!;
    expect(sent).toMatchObject({ text: post.text, chat: { username: 'harbour_news' } });
    expect(sent.photo).toBeUndefined();
    expect(published).toEqual({ externalPostId: String(sent.messageId), url: `https://t.me/harbour_news/${sent.messageId}` });
    expect(telegram.requests.map((request) => request.botMethod)).toEqual(['sendMessage']);
  });

  it('when the chat is private, then the message id is kept and no link is made', async () => {
    const published = await connector.publish(credentials({ chatId: '-1009876543210' }), postWith());
    expect(published).toEqual({ externalPostId: String(telegram.messages.at(-1)!.messageId), url: undefined });
  });

  it('when a post has an image, then it goes with sendPhoto as multipart: the chat, the text as caption, the photo file', async () => {
    const post = postWith({ image: { bytes: png, contentType: 'image/png', alt: 'Boats at dawn' } });
    await connector.publish(credentials(), post);
    const sent = telegram.messages.at(-1)!;
    expect(sent.parts.map((part) => part.name)).toEqual(['chat_id', 'caption', 'photo']);
    expect(sent).toMatchObject({ caption: post.text, photo: { filename: 'image.png', contentType: 'image/png' } });
    expect(sent.photo!.bytes.equals(png)).toBe(true);
  });

  it('when a post has a video, then it goes with sendVideo, streamed as multipart: the chat, its length and size, streaming on, the caption, the file', async () => {
    const mp4 = makeVideo();
    const post = postWith({ text: `${'Tide '.repeat(300)}end`, video: socialVideoOf(mp4, { durationMs: 1_000, width: 108, height: 192 }) });
    const preview = await connector.preview({ text: post.text, video: post.video });
    await expect(connector.publish(credentials(), post)).resolves.toMatchObject({ externalPostId: expect.any(String) });
    const sent = telegram.messages.at(-1)!;
    expect(sent.parts.map((part) => part.name)).toEqual(['chat_id', 'duration', 'width', 'height', 'supports_streaming', 'caption', 'video']);
    expect(sent).toMatchObject({ caption: preview.text, video: { filename: 'video.mp4', contentType: 'video/mp4', duration: 1, width: 108, height: 192 } });
    // A video's caption is cut as a photo's is.
    expect(preview.text.length).toBeLessThanOrEqual(1_024);
    expect(preview.image).toBeNull();
    expect(sent.video!.bytes.equals(mp4)).toBe(true);
  });

  it("when the video is over the bots' 50 MB, then Telegram refuses it for good, in its words", async () => {
    const mp4 = makeVideo();
    const huge = Buffer.concat([mp4, Buffer.alloc(50 * 1024 * 1024 - mp4.length + 1)]);
    expect(connector.declaration.video?.maxBytes).toBe(50 * 1024 * 1024);
    const error = await failureOf(connector.publish(credentials(), postWith({ video: socialVideoOf(huge) })), SocialRejectedError);
    expect(error.reason).toBe('Telegram refused the video (413): Request Entity Too Large');
    expect(telegram.messages.some((message) => message.video?.bytes.length === huge.length)).toBe(false);
  });

  it('when the text is long, then a caption is cut to 1,024 and a message to 4,096, as the preview shows, emoji counted as Telegram counts them', async () => {
    const text = `${'🌊 Tide '.repeat(700)}end`;
    const image = { bytes: png, contentType: 'image/png' as const, alt: '' };
    const captionPreview = await connector.preview({ text, image });
    await connector.publish(credentials(), postWith({ text, image }));
    const caption = telegram.messages.at(-1)!.caption!;
    expect(caption).toBe(captionPreview.text);
    expect(caption.length).toBeLessThanOrEqual(1_024);
    expect(caption.endsWith('…')).toBe(true);
    expect(captionPreview.count).toBe(Array.from(caption).length);

    const messagePreview = await connector.preview({ text });
    await connector.publish(credentials(), postWith({ text }));
    const message = telegram.messages.at(-1)!.text!;
    expect(message).toBe(messagePreview.text);
    expect(message.length).toBeLessThanOrEqual(4_096);
    expect(message.length).toBeGreaterThan(4_000);
  });

  it('when Telegram answers 429 with parameters.retry_after, then the failure is a rate limit with that wait', async () => {
    telegram.script('sendMessage', [{ status: 429, retryAfterSeconds: 7 }]);
    const error = await failureOf(connector.publish(credentials(), postWith()), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(7_000);
    expect(error.message).toBe('Telegram rate limit reached (429): Too Many Requests: retry after 7');
  });

  it('when Telegram refuses the photo, then the refusal is final and carries its description', async () => {
    telegram.script('sendPhoto', [{ status: 403, description: 'Forbidden: bot is not a member of the channel chat' }]);
    const error = await failureOf(
      connector.publish(credentials(), postWith({ image: { bytes: png, contentType: 'image/png', alt: '' } })),
      SocialRejectedError,
    );
    expect(error.reason).toBe('Telegram refused the photo (403): Forbidden: bot is not a member of the channel chat');
  });

  it('when the photo is 21 times as wide as it is high, then Telegram refuses its dimensions, for good', async () => {
    const strip = await sharp({ create: { width: 2100, height: 100, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const error = await failureOf(
      connector.publish(credentials(), postWith({ image: { bytes: strip, contentType: 'image/png', alt: '' } })),
      SocialRejectedError,
    );
    expect(error.reason).toBe('Telegram refused the photo (400): Bad Request: PHOTO_INVALID_DIMENSIONS');
  });

  it('when Telegram fails or its answer to a message is lost, then it is an outage, or an unknown outcome', async () => {
    telegram.script('sendMessage', [{ status: 502 }, { dropped: true }]);
    await failureOf(connector.publish(credentials(), postWith()), SocialUnavailableError);
    await failureOf(connector.publish(credentials(), postWith()), SocialOutcomeUnknownError);
  });

  it('when anything fails, then no error carries the bot token, which is part of every URL', async () => {
    telegram.echoTokenInErrors = true;
    const wrongToken = `${telegram.bot.id}:wrong-secret-${randomUUID()}`;
    telegram.script('sendMessage', [{ status: 400, description: 'Bad Request: something' }, { delayMs: 5_000 }]);
    const unreachable = createTelegramConnector({ allowPrivateNetworks: true, apiUrl: `https://127.0.0.1:${await closedPort()}`, timeoutMs: 2_000 });
    const guarded = createTelegramConnector({ allowPrivateNetworks: false, apiUrl: telegram.url });
    const failures = [
      await failureOf(connector.verify(credentials({ botToken: wrongToken }))),
      await failureOf(connector.publish(credentials(), postWith())),
      await failureOf(connector.publish(credentials(), postWith())),
      await failureOf(unreachable.publish(credentials(), postWith())),
      await failureOf(guarded.verify(credentials())),
      await failureOf(connector.verify(credentials({ botToken: `${telegram.token}/../../x` }))),
    ];
    expect(failures.map((error) => error.constructor.name)).toEqual([
      'SocialRejectedError',
      'SocialRejectedError',
      'SocialOutcomeUnknownError',
      'SocialUnavailableError',
      'SocialRejectedError',
      'SocialRejectedError',
    ]);
    // The fake did echo the tokens: the redaction is what keeps them out.
    expect((failures[0] as SocialRejectedError).reason).toContain('[redacted]');
    for (const error of failures) {
      expect(everythingIn(error)).not.toContain(telegram.token.split(':')[1]);
      expect(everythingIn(error)).not.toContain(wrongToken.split(':')[1]);
    }
  });
});
