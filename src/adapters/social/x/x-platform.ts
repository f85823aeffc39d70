import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createXConnector } from './x-connector.ts';
import { createXOAuthPlatform } from './x-oauth-platform.ts';

export const xPlatform = {
  platform: 'x',
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createXOAuthPlatform({ ...httpOptionsOf(config), apiUrl: config.x.apiUrl, authorizeUrl: config.x.authorizeUrl }),
      client: config.x.client,
      serverUrl: config.x.apiUrl,
      authorsApp: null,
    }),
    // The user id is whose recent posts a retry looks in (x-connector.ts).
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'x', userId: account.accountId }),
    authors: null,
  },
  createConnector: (config) => createXConnector({ ...httpOptionsOf(config), apiUrl: config.x.apiUrl, authorizeUrl: config.x.authorizeUrl }),
} satisfies PlatformModule<'x'>;
