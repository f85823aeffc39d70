import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createDiscordConnector } from './discord-connector.ts';

/** POST /social-connections for Discord: a channel's webhook URL, which must be one of DISCORD_API_URL. */
export type DiscordConnectionInput = { platform: 'discord'; webhookUrl: string };

export const discordPlatform = {
  platform: 'discord',
  imageLink: null,
  connection: {
    via: 'credentials',
    credentialsOf: (input) => ({ platform: 'discord', webhookUrl: input.webhookUrl }),
    // The webhook URL is the credentials and the server at once.
    rejectedFields: { credentials: '/webhookUrl', server: '/webhookUrl' },
  },
  createConnector: (config) => createDiscordConnector({ ...httpOptionsOf(config), apiUrl: config.discord.apiUrl }),
} satisfies PlatformModule<'discord', DiscordConnectionInput>;
