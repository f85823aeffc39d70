import type { SlackCredentials } from '../../adapters/social/social-connector.ts';
import { SlackChannelRefusedError } from '../../adapters/social/slack-api.ts';

/** POST /social-connections for Slack: the bot token of the customer's Slack app and the channel to post in. */
export type SlackConnectionInput = { platform: 'slack'; botToken: string; channelId: string };

export function slackCredentialsOf(input: SlackConnectionInput): SlackCredentials {
  return { platform: 'slack', botToken: input.botToken.trim(), channelId: input.channelId.trim() };
}

/** The request field a Slack refusal is about: the channel, or else the token. */
export function slackRejectedPath(error: Error): '/channelId' | '/botToken' {
  return error instanceof SlackChannelRefusedError ? '/channelId' : '/botToken';
}
