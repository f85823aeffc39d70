import { httpOptionsOf, type PlatformModule } from '../platform-module.ts';
import { createLinkedInConnector } from './linkedin-connector.ts';
import { createLinkedInOAuth, type LinkedInApp } from './linkedin-oauth.ts';

export const linkedInPlatform = {
  platform: 'linkedin',
  imageLink: null,
  connection: {
    via: 'oauth',
    setupOf: (config) => {
      const { organizationClient, organizationAuthors, client, ...linkedin } = config.linkedin;
      const oauthOf = (app: LinkedInApp) => createLinkedInOAuth({ ...httpOptionsOf(config), ...linkedin, app });
      // With an app of their own, organisations go through it and the member's app asks for the member's scopes only.
      const app = organizationAuthors && !organizationClient ? 'members and organizations' : 'members';
      return {
        platform: oauthOf(app),
        client,
        serverUrl: linkedin.apiUrl,
        authorsApp: organizationClient ? { platform: oauthOf('organizations'), client: organizationClient } : null,
      };
    },
    // The member's URN, or the organisation's they may post for (linkedin-author.ts).
    credentialsOf: (tokens, account) => ({ ...tokens, platform: 'linkedin', author: account.accountId }),
    // Organisations need the Community Management API's scopes, which the authorization asks for only when enabled.
    authors: { what: 'LinkedIn organisation', scope: 'w_organization_social', enabledBy: 'LINKEDIN_ORGANIZATION_CLIENT_ID (or LINKEDIN_ORGANIZATION_AUTHORS)' },
  },
  createConnector: (config) =>
    createLinkedInConnector({ ...httpOptionsOf(config), apiUrl: config.linkedin.apiUrl, authorizeUrl: config.linkedin.authorizeUrl }),
} satisfies PlatformModule<'linkedin'>;
