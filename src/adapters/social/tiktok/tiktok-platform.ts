import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createTikTokConnector } from './tiktok-connector.ts';
import { createTikTokOAuth } from './tiktok-oauth.ts';

export const tikTokPlatform = {
  platform: 'tiktok',
  // TikTok takes videos only.
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createTikTokOAuth({ ...httpOptionsOf(config), apiUrl: config.tiktok.apiUrl, authorizeUrl: config.tiktok.authorizeUrl }),
      client: config.tiktok.client,
      serverUrl: config.tiktok.apiUrl,
      authorsApp: null,
    }),
    // The privacy level is chosen after connecting, and kept on the connection (TikTokCredentials).
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'tiktok', openId: account.accountId }),
    authors: null,
  },
  createConnector: (config) => createTikTokConnector({ ...httpOptionsOf(config), ...config.tiktok }),
} satisfies PlatformModule<'tiktok'>;
