import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createSlackConnector } from './slack-connector.ts';

/** POST /social-connections for Slack: the bot token of the customer's Slack app and the channel to post in. */
export type SlackConnectionInput = { platform: 'slack'; botToken: string; channelId: string };

export const slackPlatform = {
  platform: 'slack',
  imageLink: null,
  connection: {
    via: 'credentials',
    credentialsOf: (input) => ({ platform: 'slack', botToken: input.botToken.trim(), channelId: input.channelId.trim() }),
    // Slack's server is the operator's (SLACK_API_URL), never the client's.
    rejectedFields: { credentials: '/botToken', destination: '/channelId' },
  },
  createConnector: (config) => createSlackConnector({ ...httpOptionsOf(config), apiUrl: config.slack.apiUrl }),
} satisfies PlatformModule<'slack', SlackConnectionInput>;
