import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createThreadsConnector } from './threads-connector.ts';
import { createThreadsOAuthPlatform } from './threads-oauth-platform.ts';

export const threadsPlatform = {
  platform: 'threads',
  // Threads takes no upload: it fetches the image once, while posting, so a signed, expiring link does.
  imageLink: 'signed',
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createThreadsOAuthPlatform({ ...httpOptionsOf(config), apiUrl: config.threads.apiUrl, authorizeUrl: config.threads.authorizeUrl }),
      client: config.threads.client,
      serverUrl: config.threads.apiUrl,
      authorsApp: null,
    }),
    // The user id is whose threads the posts are made under.
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'threads', userId: account.accountId }),
    authors: null,
  },
  createConnector: (config) => createThreadsConnector({ ...httpOptionsOf(config), apiUrl: config.threads.apiUrl }),
} satisfies PlatformModule<'threads'>;
