import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLinkedInOAuth, type LinkedInApp } from '../../../../src/adapters/social/linkedin/linkedin-oauth.ts';
import type { OAuthPlatform, OAuthTokens } from '../../../../src/adapters/social/oauth-platform.ts';
import { SocialRateLimitedError, SocialRejectedError, SocialUnavailableError } from '../../../../src/adapters/social/social-connector.ts';
import { startLinkedInServer, type LinkedInServer } from '../../../fakes/linkedin-server.ts';
import { failureOf } from '../../../support/failure-of.ts';

const callbackUrl = 'https://content.example.com/oauth/linkedin/callback';
const day = 24 * 3600 * 1000;

let linkedin: LinkedInServer;
let oauth: OAuthPlatform;

function optionsFor(app: LinkedInApp) {
  return { apiUrl: linkedin.url, authorizeUrl: `${linkedin.url}/oauth/v2`, allowPrivateNetworks: true, app };
}

/** A fresh PKCE pair, as the oauth lane's authorizations make them. */
function pkce(): { codeVerifier: string; codeChallenge: string } {
  const codeVerifier = randomBytes(32).toString('base64url');
  return { codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}

/** The member's browser: follows the authorization URL to LinkedIn and reads where LinkedIn sends them back. */
async function consent(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') ?? '');
}

/** The whole round trip up to the tokens. */
async function connect(platform: OAuthPlatform = oauth): Promise<OAuthTokens> {
  const { codeVerifier, codeChallenge } = pkce();
  const back = await consent(platform.authorizationUrl({ client: linkedin.client, callbackUrl, state: 'state-1', codeChallenge }));
  return platform.exchangeCode({ client: linkedin.client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier });
}

beforeAll(async () => {
  linkedin = await startLinkedInServer();
  linkedin.redirectUris = [callbackUrl];
  oauth = createLinkedInOAuth(optionsFor('members'));
});
beforeEach(() => {
  linkedin.requests.length = 0;
  linkedin.tokenRequests.length = 0;
  linkedin.programmaticRefresh = true;
  linkedin.memberDeclines = false;
  linkedin.refreshTokenSeconds = 365 * 24 * 3600;
});
afterAll(() => linkedin?.close());

describe('LinkedIn OAuth: authorization', () => {
  it('when a member connects, then the URL asks for the member scopes with PKCE S256, and the code becomes tokens of that member', async () => {
    const { codeVerifier, codeChallenge } = pkce();
    const state = randomUUID();
    const url = new URL(oauth.authorizationUrl({ client: linkedin.client, callbackUrl, state, codeChallenge }));
    expect(`${url.origin}${url.pathname}`).toBe(`${linkedin.url}/oauth/v2/authorization`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: linkedin.client.clientId,
      redirect_uri: callbackUrl,
      state,
      scope: 'openid profile w_member_social',
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    });

    const back = await consent(url.toString());
    expect(`${back.origin}${back.pathname}`).toBe(callbackUrl);
    expect(back.searchParams.get('state')).toBe(state);
    const before = Date.now();
    const tokens = await oauth.exchangeCode({ client: linkedin.client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier });

    // The client secret goes in the form body, with the verifier.
    expect(Object.fromEntries(linkedin.tokenRequests[0] ?? [])).toMatchObject({
      grant_type: 'authorization_code',
      client_id: linkedin.client.clientId,
      client_secret: linkedin.client.clientSecret,
      redirect_uri: callbackUrl,
      code_verifier: codeVerifier,
    });
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.expiresAt).toBeGreaterThanOrEqual(before + 60 * day - 2_000);
    expect(tokens.expiresAt).toBeLessThanOrEqual(Date.now() + 60 * day);
    expect(tokens.refreshTokenExpiresAt).toBeGreaterThanOrEqual(before + 365 * day - 2_000);
    expect(await oauth.account(tokens.accessToken)).toEqual({ accountName: 'Alice Example', accountId: `urn:li:person:${linkedin.member.sub}` });
  });

  it('when the operator enables organisation authors, then the organisation scopes are asked for too', () => {
    const withOrganizations = createLinkedInOAuth(optionsFor('members and organizations'));
    const url = new URL(withOrganizations.authorizationUrl({ client: linkedin.client, callbackUrl, state: 's', codeChallenge: pkce().codeChallenge }));
    expect(url.searchParams.get('scope')).toBe('openid profile w_member_social w_organization_social r_organization_social r_organization_admin');
    expect(withOrganizations.scopes).toContain('w_organization_social');
  });

  it("when organisations have an app of their own (Community Management alone), then it asks for that product's scopes and no OpenID, reads the member from their profile, and refreshes with its own client", async () => {
    const organizations = createLinkedInOAuth(optionsFor('organizations'));
    const client = linkedin.organizationClient;
    const { codeVerifier, codeChallenge } = pkce();
    const url = new URL(organizations.authorizationUrl({ client, callbackUrl, state: 's', codeChallenge }));
    expect(url.searchParams.get('client_id')).toBe(client.clientId);
    expect(url.searchParams.get('scope')).toBe('r_basicprofile w_organization_social r_organization_social rw_organization_admin');
    const back = await consent(url.toString());
    const tokens = await organizations.exchangeCode({ client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier });
    linkedin.acls = [{ organization: 'urn:li:organization:2414183', role: 'ADMINISTRATOR', state: 'APPROVED' }];
    linkedin.organizations.set('2414183', 'Devtestco');
    expect(await organizations.account(tokens.accessToken, 'urn:li:organization:2414183')).toEqual({
      accountName: 'Devtestco',
      accountId: 'urn:li:organization:2414183',
    });
    expect(linkedin.requests.some((request) => request.path === '/v2/me')).toBe(true);

    const refreshed = await organizations.refresh({ client, tokens });
    expect(linkedin.tokenRequests.at(-1)?.get('client_id')).toBe(client.clientId);
    // The member's app cannot refresh the organisation app's tokens.
    await failureOf(oauth.refresh({ client: linkedin.client, tokens: refreshed }), SocialRejectedError);
  });

  it('when the app without OpenID is asked for OpenID scopes, then LinkedIn refuses the authorization for its scope', async () => {
    const back = await consent(oauth.authorizationUrl({ client: linkedin.organizationClient, callbackUrl, state: 's', codeChallenge: pkce().codeChallenge }));
    expect(back.searchParams.get('error')).toBe('unauthorized_scope_error');
    expect(back.searchParams.get('error_description')).toBe('Scope "openid" is not authorized for your application');
  });

  it("when the verifier is not the one of the challenge, then the exchange is refused with LinkedIn's reason and without the code", async () => {
    const { codeChallenge } = pkce();
    const back = await consent(oauth.authorizationUrl({ client: linkedin.client, callbackUrl, state: 's', codeChallenge }));
    const code = back.searchParams.get('code') ?? '';
    const error = await failureOf(oauth.exchangeCode({ client: linkedin.client, callbackUrl, code, codeVerifier: pkce().codeVerifier }), SocialRejectedError);
    expect(error.reason).toMatch(/^LinkedIn refused the grant \(400\): invalid_request: Unable to retrieve access token/);
    expect(error.reason).not.toContain(code);
  });

  it('when a code is used twice, then the second exchange is refused', async () => {
    const { codeVerifier, codeChallenge } = pkce();
    const back = await consent(oauth.authorizationUrl({ client: linkedin.client, callbackUrl, state: 's', codeChallenge }));
    const exchange = () => oauth.exchangeCode({ client: linkedin.client, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier });
    await exchange();
    await failureOf(exchange(), SocialRejectedError);
  });

  it('when the client secret is wrong, then the exchange is refused without the secret in the reason', async () => {
    const wrong = { clientId: linkedin.client.clientId, clientSecret: 'not-the-secret-0123456789' };
    const { codeVerifier, codeChallenge } = pkce();
    const back = await consent(oauth.authorizationUrl({ client: linkedin.client, callbackUrl, state: 's', codeChallenge }));
    const error = await failureOf(
      oauth.exchangeCode({ client: wrong, callbackUrl, code: back.searchParams.get('code') ?? '', codeVerifier }),
      SocialRejectedError,
    );
    expect(error.reason).toBe('LinkedIn refused the grant (401): invalid_client: Client authentication failed');
  });

  it('when the member declines, then LinkedIn sends them back with its error and no code', async () => {
    linkedin.memberDeclines = true;
    const back = await consent(oauth.authorizationUrl({ client: linkedin.client, callbackUrl, state: 's', codeChallenge: pkce().codeChallenge }));
    expect(back.searchParams.get('error')).toBe('user_cancelled_authorize');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('LinkedIn OAuth: refresh', () => {
  it('when the tokens are refreshed, then a new access token comes with the same refresh token and what is left of its year', async () => {
    const tokens = await connect();
    const refreshed = await oauth.refresh({ client: linkedin.client, tokens });

    expect(Object.fromEntries(linkedin.tokenRequests.at(-1) ?? [])).toEqual({
      grant_type: 'refresh_token',
      refresh_token: tokens.refreshToken,
      client_id: linkedin.client.clientId,
      client_secret: linkedin.client.clientSecret,
    });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).toBe(tokens.refreshToken);
    expect(refreshed.refreshTokenExpiresAt).toBeLessThanOrEqual(tokens.refreshTokenExpiresAt! + 2_000);
    expect(refreshed.refreshTokenExpiresAt).toBeGreaterThanOrEqual(tokens.refreshTokenExpiresAt! - 2_000);
    expect(await oauth.account(refreshed.accessToken)).toMatchObject({ accountId: `urn:li:person:${linkedin.member.sub}` });
  });

  it('when the member revoked the app, then the refresh is refused for good, without the token in the reason', async () => {
    const tokens = await connect();
    linkedin.revokeAll();
    const error = await failureOf(oauth.refresh({ client: linkedin.client, tokens }), SocialRejectedError);
    expect(error.reason).toBe('LinkedIn refused the grant (400): invalid_request: The provided refresh token is invalid, expired or revoked');
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(tokens.refreshToken);
  });

  it("when the refresh token's year is over, then the refresh is refused and the member must connect again", async () => {
    linkedin.refreshTokenSeconds = 0;
    const tokens = await connect();
    await failureOf(oauth.refresh({ client: linkedin.client, tokens }), SocialRejectedError);
  });

  it('when LinkedIn is unavailable (503), then the refresh is an outage, not a dead token', async () => {
    const tokens = await connect();
    linkedin.script('accessToken', [{ status: 503 }]);
    const error = await failureOf(oauth.refresh({ client: linkedin.client, tokens }), SocialUnavailableError);
    expect(error.message).toBe('LinkedIn is unavailable (503)');
    // The same refresh token still works afterwards.
    await oauth.refresh({ client: linkedin.client, tokens });
  });

  it('when the token endpoint rate-limits (429), then the refresh is retried later, not taken as a dead token', async () => {
    const tokens = await connect();
    linkedin.script('accessToken', [{ status: 429, retryAfter: '120', oauthError: 'too_many_requests', message: 'Too many requests' }]);
    const error = await failureOf(oauth.refresh({ client: linkedin.client, tokens }), SocialRateLimitedError);
    expect(error.retryAfterMs).toBe(120_000);
  });

  it('when the app has no programmatic refresh, then the grant has no refresh token and a refresh asks for the member again', async () => {
    linkedin.programmaticRefresh = false;
    const tokens = await connect();
    expect(tokens.refreshToken).toBeUndefined();
    const error = await failureOf(oauth.refresh({ client: linkedin.client, tokens }), SocialRejectedError);
    expect(error.reason).toContain('connect it again');
    expect(linkedin.tokenRequests).toHaveLength(1);
  });
});
