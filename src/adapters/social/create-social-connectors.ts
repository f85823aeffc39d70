import type { Config } from '../../config.ts';
import { createBlueskyConnector } from './bluesky/bluesky-connector.ts';
import { createDiscordConnector } from './discord/discord-connector.ts';
import { createLinkedInConnector } from './linkedin/linkedin-connector.ts';
import { createLinkedInOAuth } from './linkedin/linkedin-oauth.ts';
import { createMastodonConnector } from './mastodon/mastodon-connector.ts';
import { createNostrConnector } from './nostr/nostr-connector.ts';
import type { OAuthClient, OAuthPlatform } from './oauth-platform.ts';
import type { SocialConnector, SocialPlatform } from './social-connector.ts';
import { createSlackConnector } from './slack/slack-connector.ts';
import { createTelegramConnector } from './telegram/telegram-connector.ts';
import { createThreadsConnector } from './threads/threads-connector.ts';
import { createThreadsOAuthPlatform } from './threads/threads-oauth-platform.ts';
import { createXConnector } from './x/x-connector.ts';
import { createXOAuthPlatform } from './x/x-oauth-platform.ts';

/** One connector per platform, guarded like every request to a customer-given address. */
export function createSocialConnectors(config: Config['social']): Record<SocialPlatform, SocialConnector> {
  const http = { allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.requestTimeoutMs };
  return {
    mastodon: createMastodonConnector(http),
    bluesky: createBlueskyConnector(http),
    x: createXConnector({ ...http, apiUrl: config.x.apiUrl, authorizeUrl: config.x.authorizeUrl }),
    linkedin: createLinkedInConnector({ ...http, apiUrl: config.linkedin.apiUrl, authorizeUrl: config.linkedin.authorizeUrl }),
    threads: createThreadsConnector({ ...http, apiUrl: config.threads.apiUrl }),
    nostr: createNostrConnector({ allowPrivateNetworks: config.allowPrivateNetworks }),
    slack: createSlackConnector({ ...http, apiUrl: config.slack.apiUrl }),
    telegram: createTelegramConnector({ ...http, apiUrl: config.telegram.apiUrl }),
    discord: createDiscordConnector({ ...http, apiUrl: config.discord.apiUrl }),
  };
}

/**
 * A platform connected through OAuth 2: its side of the flow, the operator's app (null: not configured), and the API
 * its connections are shown to talk to (`serverUrl`).
 */
export type OAuthSetup = { platform: OAuthPlatform; client: OAuthClient | null; serverUrl: string };
export type OAuthPlatforms = Partial<Record<SocialPlatform, OAuthSetup>>;

/** The platforms that connect through OAuth 2, each with the operator's app if one is configured. */
export function createOAuthPlatforms(config: Config['social']): OAuthPlatforms {
  const http = { allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.requestTimeoutMs };
  return {
    x: {
      platform: createXOAuthPlatform({ ...http, apiUrl: config.x.apiUrl, authorizeUrl: config.x.authorizeUrl }),
      client: config.x.client,
      serverUrl: config.x.apiUrl,
    },
    linkedin: {
      platform: createLinkedInOAuth({ ...http, ...config.linkedin }),
      client: config.linkedin.client,
      serverUrl: config.linkedin.apiUrl,
    },
    threads: {
      platform: createThreadsOAuthPlatform({ ...http, apiUrl: config.threads.apiUrl, authorizeUrl: config.threads.authorizeUrl }),
      client: config.threads.client,
      serverUrl: config.threads.apiUrl,
    },
  };
}
