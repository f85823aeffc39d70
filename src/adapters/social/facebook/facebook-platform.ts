import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createFacebookConnector } from './facebook-connector.ts';
import { createFacebookOAuth } from './facebook-oauth.ts';

export const facebookPlatform = {
  platform: 'facebook',
  // Photos and videos are uploaded with the post.
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createFacebookOAuth({ ...httpOptionsOf(config), apiUrl: config.facebook.apiUrl, authorizeUrl: config.facebook.authorizeUrl }),
      client: config.facebook.client,
      serverUrl: config.facebook.apiUrl,
      authorsApp: null,
    }),
    // The person's id; the Page the posts go to is chosen after connecting (the connection's destination).
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'facebook', userId: account.accountId }),
    authors: null,
  },
  createConnector: (config) =>
    createFacebookConnector({
      ...httpOptionsOf(config),
      apiUrl: config.facebook.apiUrl,
      videoApiUrl: config.facebook.videoApiUrl,
      appId: config.facebook.client?.clientId ?? null,
    }),
} satisfies PlatformModule<'facebook'>;
