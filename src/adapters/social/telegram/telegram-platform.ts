import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createTelegramConnector } from './telegram-connector.ts';

/** POST /social-connections for Telegram: a bot's token and the chat it posts to (a numeric id or `@channelname`). */
export type TelegramConnectionInput = { platform: 'telegram'; botToken: string; chatId: string };

export const telegramPlatform = {
  platform: 'telegram',
  imageLink: null,
  connection: {
    via: 'credentials',
    credentialsOf: (input) => ({ platform: 'telegram', botToken: input.botToken, chatId: input.chatId }),
    // The Bot API's address is the operator's (TELEGRAM_API_URL), never the client's.
    rejectedFields: { credentials: '/botToken', destination: '/chatId' },
  },
  createConnector: (config) => createTelegramConnector({ ...httpOptionsOf(config), apiUrl: config.telegram.apiUrl }),
} satisfies PlatformModule<'telegram', TelegramConnectionInput>;
