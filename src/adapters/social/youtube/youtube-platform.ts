import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createYouTubeConnector } from './youtube-connector.ts';
import { createYouTubeOAuth } from './youtube-oauth.ts';

export const youTubePlatform = {
  platform: 'youtube',
  // YouTube takes no images.
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createYouTubeOAuth({ ...httpOptionsOf(config), ...config.youtube }),
      client: config.youtube.client,
      serverUrl: config.youtube.apiUrl,
      authorsApp: null,
    }),
    // The channel the token uploads to.
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'youtube', channelId: account.accountId }),
    authors: null,
  },
  createConnector: (config) => createYouTubeConnector({ ...httpOptionsOf(config), ...config.youtube }),
} satisfies PlatformModule<'youtube'>;
