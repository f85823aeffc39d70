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
 * For organisation authors, with the Community Management API product: posting as the organisation, reading the
 * member's roles (to check they may), and listing the organisation's posts (to reconcile a lost answer).
 */
const linkedInOrganizationScopes = ['w_organization_social', 'r_organization_social', 'r_organization_admin'] as const;

export type LinkedInOAuthOptions = LinkedInOptions & {
  /** Whether the operator's app has the Community Management API, so members can connect their organisations. */
  organizationAuthors: boolean;
};

function positiveSeconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

export function createLinkedInOAuth(options: LinkedInOAuthOptions): OAuthPlatform {
  const api = createLinkedInApi(options);
  const authors = createLinkedInAuthors(options);
  const base = options.authorizeUrl.replace(/\/+$/, '');
  const scopes = options.organizationAuthors ? [...linkedInMemberScopes, ...linkedInOrganizationScopes] : [...linkedInMemberScopes];

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
      const member = await authors.member(accessToken);
      const { accountName, accountId } = await authors.authorFor({ accessToken, member, requested: author });
      return { accountName, accountId };
    },
  };
}
