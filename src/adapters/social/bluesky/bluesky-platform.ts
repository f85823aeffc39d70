import { httpOptionsOf, type CredentialsOf, type PlatformModule } from '../platform-module.ts';
import { trimSlash } from '../trim-slash.ts';
import { createBlueskyConnector } from './bluesky-connector.ts';

/**
 * POST /social-connections for Bluesky: the account's handle and an app password, on its PDS (bsky.social unless
 * given), and the language its posts are tagged with (`postLanguage`, kept on the connection).
 */
export type BlueskyConnectionInput = { platform: 'bluesky'; serviceUrl?: string; handle: string; appPassword: string; postLanguage?: string };

const defaultService = 'https://bsky.social';

export const blueskyPlatform = {
  platform: 'bluesky',
  imageLink: null,
  connection: {
    via: 'credentials',
    credentialsOf: (input) => ({
      platform: 'bluesky',
      serviceUrl: trimSlash(input.serviceUrl ?? defaultService),
      handle: input.handle,
      appPassword: input.appPassword,
    }),
    rejectedFields: { server: '/serviceUrl', credentials: '/appPassword' },
    serverUrlOf: (credentials: CredentialsOf<'bluesky'>) => credentials.serviceUrl,
  },
  createConnector: (config) => createBlueskyConnector(httpOptionsOf(config)),
} satisfies PlatformModule<'bluesky', BlueskyConnectionInput>;
