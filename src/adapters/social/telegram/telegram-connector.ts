import { imageDimensions } from '../image-dimensions.ts';
import { shortenText } from '../shorten-text.ts';
import {
  SocialRejectedError,
  SocialUnavailableError,
  type PublishedSocialPost,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostDraft,
  type SocialVideo,
  type TelegramCredentials,
} from '../social-connector.ts';
import { createTelegramApi, type TelegramApiOptions } from './telegram-api.ts';
import { encodeMultipart, imageFileName, streamedMultipart, videoFile, type Multipart } from '../platform-http.ts';
import { platformNames } from '../social-platforms.ts';

// Telegram through a bot: https://core.telegram.org/bots/api#sendphoto (or #sendvideo) with the text as the photo's
// (or video's) caption when the post has one, else https://core.telegram.org/bots/api#sendmessage; to a channel the bot administers (its
// `@channelname` or numeric id) or any chat it is in. The text goes as plain text (no parse_mode), so nothing in it
// is read as markup. One attempt per call, as Temporal's retry policy owns retrying.
//
// Text limits: a caption takes 1,024 characters, a message 4,096. The declaration's one `max` is the caption's: the
// most a post can always carry whole, with or without its image (posts here usually have one). A post without an
// image is cut at 4,096 only, so its text may run past the declared `max` whole; the dry run shows the same, as it
// works the text out with the same function. Telegram counts UTF-16 code units (an emoji beyond the BMP is 2), so
// the cut keeps to that count as well as to the declared characters.

export type TelegramConnectorOptions = TelegramApiOptions;

const telegramCaptionMax = 1_024;
const telegramMessageMax = 4_096;
const maxPhotoBytes = 10 * 1024 * 1024;
const maxVideoBytes = 50 * 1024 * 1024;
// https://core.telegram.org/bots/api#chat: a public chat's username, which its t.me links use.
const usernameShape = /^[A-Za-z0-9_]{4,32}$/;

type Image = NonNullable<SocialPost['image']>;

function accountOf(credentials: SocialCredentials): TelegramCredentials {
  if (credentials.platform !== 'telegram') throw new SocialRejectedError(`the Telegram connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

/** The text Telegram is sent: a caption's worth beside an image, a message's without. */
function telegramTextOf(post: SocialPostDraft): string {
  const max = post.image || post.video ? telegramCaptionMax : telegramMessageMax;
  return shortenText(post.text, { codePoints: max, utf16Units: max });
}

/** https://core.telegram.org/bots/api#sendvideo: the file streamed, with its size and length so clients show it before loading it. */
function videoForm(chatId: string, caption: string, video: SocialVideo): Multipart {
  const fields: Array<[string, string]> = [
    ['chat_id', chatId],
    ['duration', String(Math.round(video.durationMs / 1000))],
    ['width', String(video.width)],
    ['height', String(video.height)],
    ['supports_streaming', 'true'],
  ];
  if (caption) fields.push(['caption', caption]);
  return streamedMultipart(fields, videoFile('video', video));
}

function photoForm(chatId: string, caption: string, { bytes, contentType }: Image): Promise<Multipart> {
  const form = new FormData();
  form.set('chat_id', chatId);
  if (caption) form.set('caption', caption);
  form.set('photo', new Blob([bytes], { type: contentType }), imageFileName(contentType));
  return encodeMultipart(form);
}

/** The sent message as kept: its id, and its t.me link when the chat is public. */
function publishedOf(message: Record<string, unknown>): PublishedSocialPost {
  const id = message.message_id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new SocialUnavailableError('Telegram answered the message without its message_id');
  const username = (message.chat as { username?: unknown } | undefined)?.username;
  const url = typeof username === 'string' && usernameShape.test(username) ? `https://t.me/${username}/${id}` : undefined;
  return { externalPostId: String(id), url };
}

/** The connector for Telegram. */
export function createTelegramConnector(options: TelegramConnectorOptions): SocialConnector {
  const api = createTelegramApi(options);

  return {
    platform: 'telegram',
    declaration: {
      platform: 'telegram',
      auth: 'token',
      text: { max: telegramCaptionMax, unit: 'characters' },
      // sendPhoto's limit; an album (sendMediaGroup) takes 10. Telegram keeps no description of a photo.
      images: { types: ['image/png', 'image/jpeg'], maxBytes: maxPhotoBytes, maxCount: 10, altText: false },
      // sendVideo's limit for a file a bot uploads ("up to 50 MB"); Telegram documents no length or shape limits.
      video: { types: ['video/mp4'], maxBytes: maxVideoBytes },
      threads: false,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: false,
        how: "The Bot API takes no idempotency key and cannot list a chat's messages: a message whose answer was lost is not sent again, and the target fails asking you to check the chat.",
      },
    },

    async verify(credentials) {
      const { botToken, chatId } = accountOf(credentials);
      await api.call(botToken, { method: 'getMe', what: 'the bot token', about: 'credentials' });
      const chat = await api.call(botToken, { method: 'getChat', json: { chat_id: chatId }, what: 'the chat', about: 'destination' });
      const id = chat.id;
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new SocialUnavailableError('Telegram answered the chat without its id');
      const name = typeof chat.username === 'string' ? `@${chat.username}` : typeof chat.title === 'string' && chat.title ? chat.title : String(id);
      return { accountName: name, accountId: String(id), serverUrl: options.apiUrl };
    },

    async preview(post) {
      const text = telegramTextOf(post);
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.telegram)) }
        : null;
      return { text, count: Array.from(text).length, image };
    },

    async publish(credentials, post) {
      const { botToken, chatId } = accountOf(credentials);
      const text = telegramTextOf(post);
      const message = post.video
        ? await api.call(botToken, { method: 'sendVideo', form: videoForm(chatId, text, post.video), creates: true, what: 'the video' })
        : post.image
          ? await api.call(botToken, { method: 'sendPhoto', form: await photoForm(chatId, text, post.image), creates: true, what: 'the photo' })
          : await api.call(botToken, { method: 'sendMessage', json: { chat_id: chatId, text }, creates: true, what: 'the message' });
      return publishedOf(message);
    },
  };
}
