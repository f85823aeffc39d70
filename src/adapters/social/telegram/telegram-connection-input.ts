import type { TelegramCredentials } from '../social-connector.ts';

/** POST /social-connections for Telegram: a bot's token and the chat it posts to (a numeric id or `@channelname`). */
export type TelegramConnectionInput = { platform: 'telegram'; botToken: string; chatId: string };

export function telegramCredentialsOf(input: TelegramConnectionInput): TelegramCredentials {
  return { platform: 'telegram', botToken: input.botToken, chatId: input.chatId };
}

/** The request's field each kind of refusal is about: the Bot API's address is the operator's (TELEGRAM_API_URL), never the client's. */
export const telegramRejectedFields = { credentials: '/botToken', destination: '/chatId' };
