import { describe, expect, it } from 'vitest';
import { oauthAppFor } from '../../../src/adapters/social/platform-module.ts';
import { createOAuthPlatforms } from '../../../src/adapters/social/platform-registry.ts';
import { AppError } from '../../../src/common/errors/app-error.ts';
import { loadConfig } from '../../../src/config.ts';
import { configuredOAuth, requireOrganizationAuthors } from '../../../src/domain/social-connections/start-authorization.ts';

const minimal = {
  DATABASE_URL: 'postgresql://u@localhost:5432/db',
  URL_SIGNING_SECRET: 'x'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function refusal(call: () => unknown): AppError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  return expect.fail('expected a refusal');
}

describe('which platforms an authorization may be started for', () => {
  it('when X has no client id and secret, then it is a 409 saying the operator has not configured it; Mastodon a 400 naming platform', () => {
    const oauth = createOAuthPlatforms(loadConfig(minimal).social);
    const unconfigured = refusal(() => configuredOAuth({ oauth }, 'x'));
    expect(unconfigured.code).toBe('conflict');
    expect(unconfigured.message).toContain('not configured');
    const token = refusal(() => configuredOAuth({ oauth }, 'mastodon'));
    expect(token.code).toBe('validation-failed');
    expect(token.extras.errors?.[0]?.path).toBe('/platform');
  });

  it('when X has its client id and secret, then its OAuth side and the app are handed out', () => {
    const oauth = createOAuthPlatforms(loadConfig({ ...minimal, X_CLIENT_ID: 'id', X_CLIENT_SECRET: 'secret' }).social);
    expect(configuredOAuth({ oauth }, 'x').client).toEqual({ clientId: 'id', clientSecret: 'secret' });
  });

  it('when an author is asked for, then only LinkedIn takes one, and only with organisation authors enabled (409 otherwise)', () => {
    const withApps = { ...minimal, LINKEDIN_CLIENT_ID: 'id', LINKEDIN_CLIENT_SECRET: 'secret', THREADS_CLIENT_ID: 'id', THREADS_CLIENT_SECRET: 'secret' };
    const members = createOAuthPlatforms(loadConfig(withApps).social);
    const disabled = refusal(() => requireOrganizationAuthors('linkedin', configuredOAuth({ oauth: members }, 'linkedin').platform.scopes));
    expect(disabled.code).toBe('conflict');
    expect(disabled.message).toContain('LINKEDIN_ORGANIZATION_AUTHORS');
    const threads = refusal(() => requireOrganizationAuthors('threads', configuredOAuth({ oauth: members }, 'threads').platform.scopes));
    expect(threads.extras.errors?.[0]?.path).toBe('/author');
    const organizations = createOAuthPlatforms(loadConfig({ ...withApps, LINKEDIN_ORGANIZATION_AUTHORS: 'true' }).social);
    expect(() => requireOrganizationAuthors('linkedin', configuredOAuth({ oauth: organizations }, 'linkedin').platform.scopes)).not.toThrow();
  });

  it('when organisations have a LinkedIn app of their own, then an authorization for an organisation goes through it, and the member app asks for the member scopes only', () => {
    const settings = { ...minimal, LINKEDIN_CLIENT_ID: 'id', LINKEDIN_CLIENT_SECRET: 'secret', LINKEDIN_ORGANIZATION_AUTHORS: 'true' };
    const withOrganizationApp = { ...settings, LINKEDIN_ORGANIZATION_CLIENT_ID: 'org-id', LINKEDIN_ORGANIZATION_CLIENT_SECRET: 'org-secret' };
    const setup = configuredOAuth({ oauth: createOAuthPlatforms(loadConfig(withOrganizationApp).social) }, 'linkedin');
    const forOrganization = oauthAppFor(setup, 'urn:li:organization:2414183');
    expect(forOrganization).toMatchObject({ client: { clientId: 'org-id' }, app: 'authors' });
    expect(() => requireOrganizationAuthors('linkedin', forOrganization.platform.scopes)).not.toThrow();
    const forMember = oauthAppFor(setup, undefined);
    expect(forMember.client.clientId).toBe('id');
    expect(forMember.platform.scopes).toEqual(['openid', 'profile', 'w_member_social']);
  });
});
