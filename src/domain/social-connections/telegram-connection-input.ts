import type { TelegramCredentials } from '../../adapters/social/social-connector.ts';

/** POST /social-connections for Telegram: a bot's token and the chat it posts to (a numeric id or `@channelname`). */
export type TelegramConnectionInput = { platform: 'telegram'; botToken: string; chatId: string };

export function telegramCredentialsOf(input: TelegramConnectionInput): TelegramCredentials {
  return { platform: 'telegram', botToken: input.botToken, chatId: input.chatId };
}

/** The request's field each kind of refusal is about. */
export const telegramRejectedFields = { credentials: '/botToken', server: '/botToken', destination: '/chatId' };
