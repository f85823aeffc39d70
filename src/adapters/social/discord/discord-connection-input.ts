import type { DiscordCredentials } from '../social-connector.ts';

/** POST /social-connections for Discord: a channel's webhook URL, which must be one of DISCORD_API_URL. */
export type DiscordConnectionInput = { platform: 'discord'; webhookUrl: string };

export function discordCredentialsOf(input: DiscordConnectionInput): DiscordCredentials {
  return { platform: 'discord', webhookUrl: input.webhookUrl };
}

/** The request's field each kind of refusal is about: the webhook URL is the credentials and the server at once. */
export const discordRejectedFields = { credentials: '/webhookUrl', server: '/webhookUrl' };
