import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createPinterestConnector } from './pinterest-connector.ts';
import { createPinterestOAuth } from './pinterest-oauth.ts';

export const pinterestPlatform = {
  platform: 'pinterest',
  // Images go in the Pin's request, in base64.
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createPinterestOAuth({ ...httpOptionsOf(config), apiUrl: config.pinterest.apiUrl, authorizeUrl: config.pinterest.authorizeUrl }),
      client: config.pinterest.client,
      serverUrl: config.pinterest.apiUrl,
      authorsApp: null,
    }),
    // The board is chosen after connecting, and kept on the connection (PinterestCredentials).
    credentialsOf: (tokens) => ({ ...tokens, platform: 'pinterest' }),
    authors: null,
  },
  createConnector: (config) =>
    createPinterestConnector({ ...httpOptionsOf(config), apiUrl: config.pinterest.apiUrl, authorizeUrl: config.pinterest.authorizeUrl }),
} satisfies PlatformModule<'pinterest'>;
