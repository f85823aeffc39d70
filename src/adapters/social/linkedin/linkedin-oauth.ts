import { createLinkedInApi, linkedInGrantFailureOf, type LinkedInOptions } from './linkedin-api.ts';
import { createLinkedInAuthors } from './linkedin-author.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import type { Answer } from '../platform-http.ts';
import { SocialRejectedError, SocialUnavailableError } from '../social-connector.ts';

// LinkedIn's OAuth 2 side: the 3-legged authorization code flow
// (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow), the member from
// Sign In with LinkedIn using OpenID Connect
// (https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2), and
// programmatic refresh (https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens).
//
// PKCE: LinkedIn documents it for native clients (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow-native),
// not for the web flow, where the client secret authenticates the exchange. The S256 challenge and its verifier are
// sent anyway: a server that checks them binds the code to this exchange, one that does not ignores them.

/** Who the member is (OpenID) and may post as themself. */
export const linkedInMemberScopes = ['openid', 'profile', 'w_member_social'] as const;
/**
 * For organisation authors, on an app that has the Community Management API beside Sign In and Share (LinkedIn allows
 * it with some products, such as the Advertising API): posting as the organisation, reading the member's roles (to
 * check they may), and listing the organisation's posts (to reconcile a lost answer).
 */
const linkedInOrganizationScopes = ['w_organization_social', 'r_organization_social', 'r_organization_admin'] as const;
/**
 * The same on an app with the Community Management API alone, which grants no OpenID scope (asking for one fails the
 * whole authorization): the member is read from their basic profile, and their roles through
 * `rw_organization_admin`, the page-management scope that product lists
 * (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/community-management-api-migration-guide).
 */
const organizationAppScopes = ['r_basicprofile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin'] as const;

/**
 * Which of the operator's LinkedIn apps this is: its products, and so the scopes an authorization asks for.
 * `members`: Sign In and Share; `members and organizations`: those and the Community Management API on one app
 * (LINKEDIN_ORGANIZATION_AUTHORS); `organizations`: the Community Management API alone (LINKEDIN_ORGANIZATION_CLIENT_ID).
 */
export type LinkedInApp = 'members' | 'members and organizations' | 'organizations';

const scopesOf: Record<LinkedInApp, readonly string[]> = {
  members: linkedInMemberScopes,
  'members and organizations': [...linkedInMemberScopes, ...linkedInOrganizationScopes],
  organizations: organizationAppScopes,
};

export type LinkedInOAuthOptions = LinkedInOptions & { app: LinkedInApp };

function positiveSeconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

export function createLinkedInOAuth(options: LinkedInOAuthOptions): OAuthPlatform {
  const api = createLinkedInApi(options);
  const authors = createLinkedInAuthors(options);
  const base = options.authorizeUrl.replace(/\/+$/, '');
  const scopes = [...scopesOf[options.app]];
  // An app without OpenID reads the member from their basic profile.
  const identity = options.app === 'organizations' ? 'profile' : 'openid';

  /** The token endpoint, with the client secret in the form body as LinkedIn takes it. */
  async function grant(client: OAuthClient, fields: Record<string, string>, secrets: string[]): Promise<Answer> {
    const form = new URLSearchParams({ ...fields, client_id: client.clientId, client_secret: client.clientSecret });
    const answer = await api.http.request({
      method: 'POST',
      url: new URL(`${base}/accessToken`),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(form.toString()),
    });
    if (answer.status !== 200) throw linkedInGrantFailureOf(answer, [client.clientSecret, ...secrets]);
    return answer;
  }

  /**
   * The tokens of a grant. LinkedIn gives a refresh token only to apps with programmatic refresh, and on a refresh
   * gives back the same refresh token with what is left of its year; without one in the answer, the one we hold stays.
   */
  function tokensOf(answer: Answer, held?: OAuthTokens): OAuthTokens {
    const now = Date.now();
    const accessToken = api.http.textField(answer, 'access_token', 'the token request');
    const expiresIn = positiveSeconds(answer.body.expires_in);
    // LinkedIn misbehaving, not refusing: the tokens are not taken as dead.
    if (expiresIn === undefined) throw new SocialUnavailableError('LinkedIn answered the token request without expires_in');
    const refreshToken = typeof answer.body.refresh_token === 'string' && answer.body.refresh_token ? answer.body.refresh_token : held?.refreshToken;
    const refreshExpiresIn = positiveSeconds(answer.body.refresh_token_expires_in);
    return {
      accessToken,
      refreshToken,
      expiresAt: now + expiresIn * 1000,
      refreshTokenExpiresAt: refreshExpiresIn === undefined ? held?.refreshTokenExpiresAt : now + refreshExpiresIn * 1000,
    };
  }

  return {
    scopes,

    authorizationUrl({ client, callbackUrl, state, codeChallenge }) {
      const url = new URL(`${base}/authorization`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        state,
        scope: scopes.join(' '),
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.toString();
    },

    async exchangeCode({ client, callbackUrl, code, codeVerifier }) {
      const answer = await grant(client, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: codeVerifier }, [
        code,
        codeVerifier,
      ]);
      return tokensOf(answer);
    },

    async refresh({ client, tokens }) {
      if (!tokens.refreshToken) {
        throw new SocialRejectedError('LinkedIn gave this connection no refresh token (the app has no programmatic refresh): connect it again');
      }
      const answer = await grant(client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken, tokens.accessToken]);
      return tokensOf(answer, tokens);
    },

    async account(accessToken, author) {
      const member = await authors.member(accessToken, identity);
      const { accountName, accountId } = await authors.authorFor({ accessToken, member, requested: author });
      return { accountName, accountId };
    },
  };
}
