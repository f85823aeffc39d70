import sharp from 'sharp';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { multipartPartsOf, type MultipartPart } from './multipart-parts.ts';
import { isMp4 } from './mp4.ts';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for Telegram's Bot API (https://core.telegram.org/bots/api): the four methods a connection uses,
// under `/bot<token>/<method>`, answered `{ok: true, result}` or `{ok: false, error_code, description, parameters?}`
// (https://core.telegram.org/bots/api#making-requests). One bot, member of the chats a test adds. What it cannot show
// of the real Telegram: its real flood limits (a test scripts a 429), a bot's rights in a chat (a test scripts the
// refusal), photo processing and resizing (the bytes are kept as sent), and delivery to people.

type TelegramMethod = 'getMe' | 'getChat' | 'sendMessage' | 'sendPhoto' | 'sendVideo';

/** A scripted answer: `retryAfterSeconds` becomes a 429's `parameters.retry_after`; `description` an error's words. */
type TelegramScriptedResponse = ScriptedResponse & { retryAfterSeconds?: number; description?: string };

type TelegramRequest = { method: string; path: string; botMethod: string; receivedAt: Date };

type TelegramChat = { id: number; type: 'channel' | 'supergroup' | 'group' | 'private'; title?: string; username?: string };

/** A message the bot sent: its text (sendMessage), or its photo and caption (sendPhoto), and every part received. */
type TelegramMessage = {
  messageId: number;
  chat: TelegramChat;
  text?: string;
  caption?: string;
  photo?: { filename: string; contentType: string; bytes: Buffer };
  video?: { filename: string; contentType: string; bytes: Buffer; duration?: number; width?: number; height?: number };
  parts: MultipartPart[];
};

/** `url` is TELEGRAM_API_URL; `token` is the bot's. */
export type TelegramServer = ScriptedServer<TelegramMethod, TelegramScriptedResponse, TelegramRequest> & {
  token: string;
  bot: { id: number; username: string };
  /** The chats the bot is in: a public channel `@harbour_news` and a private one, to start with. */
  chats: TelegramChat[];
  messages: TelegramMessage[];
  /** Error descriptions echo the token the request was sent with (as a careless proxy might): redaction tests. */
  echoTokenInErrors: boolean;
};

const captionMax = 1_024;
const messageMax = 4_096;
const photoMaxBytes = 10 * 1024 * 1024;
// https://core.telegram.org/bots/api#sendvideo: "Bots can currently send video files of up to 50 MB in size".
const videoMaxBytes = 50 * 1024 * 1024;

// The Bot API's words for its errors, as it sends them.
const descriptions: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden: bot is not a member of the channel chat',
  404: 'Not Found',
  413: 'Request Entity Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

function error(code: number, description = descriptions[code] ?? `The fake answered ${code}`, parameters?: object): Reply {
  return { status: code, body: { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) } };
}

/** https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this: a 429 says how long to wait. */
function failure(code: number, { retryAfterSeconds = 5, description }: TelegramScriptedResponse): Reply {
  if (code === 429) return error(429, description ?? `Too Many Requests: retry after ${retryAfterSeconds}`, { retry_after: retryAfterSeconds });
  return error(code, description);
}

/** Starts the fake on 127.0.0.1 (port 0). */
export async function startTelegramServer(): Promise<TelegramServer> {
  const botId = 7_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let lastMessageId = 100;

  const scripted = await startScriptedServer<TelegramMethod, TelegramScriptedResponse, TelegramRequest>({
    name: 'telegram',
    rateLimitResetHeader: 'x-unused-rate-limit-reset',
    record: (request, url) => ({
      method: request.method ?? 'GET',
      path: url.pathname,
      botMethod: url.pathname.split('/').at(-1) ?? '',
      receivedAt: new Date(),
    }),
    route,
    failure: (code, script) => {
      const reply = failure(code, script);
      // A scripted answer stands in for a request with the bot's own token.
      return server.echoTokenInErrors ? echoing(reply, server.token) : reply;
    },
  });
  const server: TelegramServer = {
    ...scripted,
    token: `${botId}:${randomBytes(26).toString('base64url')}`,
    bot: { id: botId, username: 'harbour_news_bot' },
    chats: [
      { id: -1_001_234_567_890, type: 'channel', title: 'Harbour news', username: 'harbour_news' },
      { id: -1_009_876_543_210, type: 'channel', title: 'Harbour staff' },
    ],
    messages: [],
    echoTokenInErrors: false,
  };

  function echoing(reply: Reply, token: string): Reply {
    const body = reply.body as { description?: string };
    return { ...reply, body: { ...body, description: `${body.description ?? ''} (token ${token})` } };
  }

  /** A chat by `@username` or id, as `chat_id` names it. */
  function chatOf(chatId: unknown): TelegramChat | undefined {
    const given = typeof chatId === 'number' ? String(chatId) : typeof chatId === 'string' ? chatId : '';
    return server.chats.find((chat) => (given.startsWith('@') ? chat.username === given.slice(1) : String(chat.id) === given));
  }

  function messageJson(message: TelegramMessage) {
    const { chat } = message;
    return {
      message_id: message.messageId,
      // A channel's posts are sent on behalf of the channel itself.
      ...(chat.type === 'channel'
        ? { sender_chat: chat }
        : { from: { id: server.bot.id, is_bot: true, first_name: 'Harbour', username: server.bot.username } }),
      chat,
      date: Math.floor(Date.now() / 1000),
      ...(message.text !== undefined ? { text: message.text } : {}),
      ...(message.photo
        ? {
            photo: [
              {
                file_id: `photo-${message.messageId}`,
                file_unique_id: `u${message.messageId}`,
                width: 320,
                height: 320,
                file_size: message.photo.bytes.length,
              },
            ],
          }
        : {}),
      ...(message.video
        ? {
            video: {
              file_id: `video-${message.messageId}`,
              file_unique_id: `v${message.messageId}`,
              width: message.video.width ?? 0,
              height: message.video.height ?? 0,
              duration: message.video.duration ?? 0,
              mime_type: 'video/mp4',
              file_size: message.video.bytes.length,
            },
          }
        : {}),
      ...(message.caption !== undefined ? { caption: message.caption } : {}),
    };
  }

  /** https://core.telegram.org/bots/api#getme */
  function getMe(): Reply {
    return { status: 200, body: { ok: true, result: { id: server.bot.id, is_bot: true, first_name: 'Harbour', username: server.bot.username } } };
  }

  /** https://core.telegram.org/bots/api#getchat */
  function getChat(received: Received): Reply {
    const chat = chatOf(jsonOf(received).chat_id);
    if (!chat) return error(400, 'Bad Request: chat not found');
    return { status: 200, body: { ok: true, result: { ...chat, accent_color_id: 0, max_reaction_count: 11 } } };
  }

  /** https://core.telegram.org/bots/api#sendmessage */
  function sendMessage(received: Received): Reply {
    const body = jsonOf(received);
    const chat = chatOf(body.chat_id);
    if (!chat) return error(400, 'Bad Request: chat not found');
    const text = typeof body.text === 'string' ? body.text : '';
    if (!text) return error(400, 'Bad Request: message text is empty');
    if (text.length > messageMax) return error(400, 'Bad Request: message is too long');
    const message: TelegramMessage = { messageId: ++lastMessageId, chat, text, parts: [] };
    server.messages.push(message);
    return { status: 200, body: { ok: true, result: messageJson(message) } };
  }

  /** https://core.telegram.org/bots/api#sendphoto: multipart, the photo as a file of its own. */
  async function sendPhoto(received: Received): Promise<Reply> {
    const parts = await multipartPartsOf(received);
    const field = (name: string) => parts.find((part) => part.name === name);
    const chat = chatOf(field('chat_id')?.value);
    if (!chat) return error(400, 'Bad Request: chat not found');
    const photo = field('photo')?.file;
    if (!photo || photo.bytes.length === 0) return error(400, 'Bad Request: there is no photo in the request');
    if (photo.bytes.length > photoMaxBytes) return error(400, 'Bad Request: file is too big');
    // "The photo's width and height must not exceed 10000 in total. Width and height ratio must be at most 20."
    const { width = 0, height = 0 } = await sharp(photo.bytes)
      .metadata()
      .catch(() => ({ width: 0, height: 0 }));
    if (width === 0 || height === 0) return error(400, 'Bad Request: IMAGE_PROCESS_FAILED');
    if (width + height > 10_000 || Math.max(width, height) / Math.min(width, height) > 20) return error(400, 'Bad Request: PHOTO_INVALID_DIMENSIONS');
    const caption = field('caption')?.value;
    if (caption !== undefined && caption.length > captionMax) return error(400, 'Bad Request: message caption is too long');
    const message: TelegramMessage = { messageId: ++lastMessageId, chat, ...(caption !== undefined ? { caption } : {}), photo, parts };
    server.messages.push(message);
    return { status: 200, body: { ok: true, result: messageJson(message) } };
  }

  /**
   * https://core.telegram.org/bots/api#sendvideo: multipart, the video as a file of its own ("Telegram clients
   * support MPEG4 videos"); a file past the bots' 50 MB is refused before it is read, as the Bot API server does.
   */
  async function sendVideo(received: Received): Promise<Reply> {
    if (received.body.length > videoMaxBytes) return error(413);
    const parts = await multipartPartsOf(received);
    const field = (name: string) => parts.find((part) => part.name === name);
    const chat = chatOf(field('chat_id')?.value);
    if (!chat) return error(400, 'Bad Request: chat not found');
    const file = field('video')?.file;
    if (!file || file.bytes.length === 0) return error(400, 'Bad Request: there is no video in the request');
    if (!isMp4(file.bytes)) return error(400, 'Bad Request: wrong file type');
    const caption = field('caption')?.value;
    if (caption !== undefined && caption.length > captionMax) return error(400, 'Bad Request: message caption is too long');
    const numberOf = (name: string) => (field(name)?.value === undefined ? undefined : Number(field(name)?.value));
    const video = { ...file, duration: numberOf('duration'), width: numberOf('width'), height: numberOf('height') };
    const message: TelegramMessage = { messageId: ++lastMessageId, chat, ...(caption !== undefined ? { caption } : {}), video, parts };
    server.messages.push(message);
    return { status: 200, body: { ok: true, result: messageJson(message) } };
  }

  const handlers: Record<TelegramMethod, (received: Received) => Reply | Promise<Reply>> = { getMe, getChat, sendMessage, sendPhoto, sendVideo };

  function route(request: IncomingMessage, url: URL): Route<TelegramMethod> | Reply {
    const [, tokenPart = '', method = ''] = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname) ?? [];
    // Telegram answers a token it cannot read, and an unknown method, 404 Not Found.
    if (!(method in handlers) || !/^[0-9]+:/.test(tokenPart)) return error(404);
    if (tokenPart !== server.token) return server.echoTokenInErrors ? echoing(error(401), decodeURIComponent(tokenPart)) : error(401);
    if (request.method !== 'POST' && request.method !== 'GET') return error(404);
    const handler = handlers[method as TelegramMethod];
    return {
      endpoint: method as TelegramMethod,
      handle: async (received) => {
        const reply = await handler(received);
        return server.echoTokenInErrors && reply.status !== 200 ? echoing(reply, server.token) : reply;
      },
    };
  }

  return server;
}
