import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createInstagramConnector } from './instagram-connector.ts';
import { createInstagramOAuth } from './instagram-oauth.ts';

export const instagramPlatform = {
  platform: 'instagram',
  // Instagram takes no upload: it fetches the image (a JPEG copy made for it) or the video from a signed link while
  // it processes the post.
  imageLink: 'signed',
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createInstagramOAuth({ ...httpOptionsOf(config), ...config.instagram }),
      client: config.instagram.client,
      serverUrl: config.instagram.apiUrl,
      authorsApp: null,
    }),
    // The professional account's id is the publishing endpoints' {ig-user-id}.
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'instagram', userId: account.accountId }),
    authors: null,
  },
  createConnector: (config) => createInstagramConnector({ ...httpOptionsOf(config), apiUrl: config.instagram.apiUrl }),
} satisfies PlatformModule<'instagram'>;
