import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createLinkedInConnector } from './linkedin-connector.ts';
import { createLinkedInOAuth } from './linkedin-oauth.ts';

export const linkedInPlatform = {
  platform: 'linkedin',
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => ({
      platform: createLinkedInOAuth({ ...httpOptionsOf(config), ...config.linkedin }),
      client: config.linkedin.client,
      serverUrl: config.linkedin.apiUrl,
    }),
    // The member's URN, or the organisation's they may post for (linkedin-author.ts).
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'linkedin', author: account.accountId }),
    // Organisations need the Community Management API's scopes, which the authorization asks for only when enabled.
    authors: { what: 'LinkedIn organisation', scope: 'w_organization_social', enabledBy: 'LINKEDIN_ORGANIZATION_AUTHORS' },
  },
  createConnector: (config) =>
    createLinkedInConnector({ ...httpOptionsOf(config), apiUrl: config.linkedin.apiUrl, authorizeUrl: config.linkedin.authorizeUrl }),
} satisfies PlatformModule<'linkedin'>;
