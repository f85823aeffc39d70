import { httpOptionsOf, type CredentialsOf, type PlatformModule } from '../platform-module.ts';
import { trimSlash } from '../trim-slash.ts';
import { createMastodonConnector } from './mastodon-connector.ts';

/** POST /social-connections for Mastodon: the instance and an access token of the account. */
export type MastodonConnectionInput = { platform: 'mastodon'; instanceUrl: string; accessToken: string };

export const mastodonPlatform = {
  platform: 'mastodon',
  imageLink: null,
  connection: {
    via: 'credentials',
    credentialsOf: (input) => ({ platform: 'mastodon', instanceUrl: trimSlash(input.instanceUrl), accessToken: input.accessToken }),
    rejectedFields: { server: '/instanceUrl', credentials: '/accessToken' },
    serverUrlOf: (credentials: CredentialsOf<'mastodon'>) => credentials.instanceUrl,
  },
  createConnector: (config) => createMastodonConnector(httpOptionsOf(config)),
} satisfies PlatformModule<'mastodon', MastodonConnectionInput>;
