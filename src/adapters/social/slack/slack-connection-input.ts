import type { SlackCredentials } from '../social-connector.ts';

/** POST /social-connections for Slack: the bot token of the customer's Slack app and the channel to post in. */
export type SlackConnectionInput = { platform: 'slack'; botToken: string; channelId: string };

export function slackCredentialsOf(input: SlackConnectionInput): SlackCredentials {
  return { platform: 'slack', botToken: input.botToken.trim(), channelId: input.channelId.trim() };
}

/** The request's field each kind of refusal is about: Slack's server is the operator's (SLACK_API_URL), never the client's. */
export const slackRejectedFields = { credentials: '/botToken', destination: '/channelId' };
