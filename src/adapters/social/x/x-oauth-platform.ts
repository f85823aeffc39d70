import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { tokensOfAnswer } from '../oauth-token-answer.ts';
import { xAccountOf, xErrorText, xFailureOf } from './x-answers.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialRejectedError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// X's OAuth 2.0 authorization code flow with PKCE (https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code,
// https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token): the person grants access at
// x.com/i/oauth2/authorize, the code is exchanged at api.x.com/2/oauth2/token by a confidential client (HTTP Basic
// with the client id and secret). `offline.access` is what gets a refresh token; access tokens last two hours, and
// every refresh hands out a new refresh token and retires the one it was given.

export type XEndpoints = {
  /** X_API_URL: the API and its token endpoint (https://api.x.com). */
  apiUrl: string;
  /** X_AUTHORIZE_URL: the page a person grants access on (https://x.com/i/oauth2/authorize). */
  authorizeUrl: string;
};

export type XOAuthOptions = PlatformHttpOptions & XEndpoints;

const xScopes = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'] as const;

// A token endpoint answer without expires_in: X documents two hours.
const defaultLifetimeSeconds = 7200;

function basicAuth({ clientId, clientSecret }: OAuthClient): string {
  // RFC 6749 §2.3.1: each part form-encoded before the Base64.
  const encode = (part: string) => encodeURIComponent(part).replaceAll('%20', '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** X's side of OAuth 2 (see OAuthPlatform). */
export function createXOAuthPlatform(options: XOAuthOptions): OAuthPlatform {
  const http = createPlatformHttp(platformNames.x, options);
  const tokenUrl = new URL('/2/oauth2/token', options.apiUrl);

  async function tokenRequest(client: OAuthClient, form: Record<string, string>, secrets: string[]): Promise<OAuthTokens> {
    const answer = await http.request({
      method: 'POST',
      url: tokenUrl,
      headers: { authorization: basicAuth(client), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(new URLSearchParams({ ...form, client_id: client.clientId }).toString()),
    });
    if (answer.status === 200) return tokensOfAnswer(answer, http, { defaultSeconds: defaultLifetimeSeconds });
    // RFC 6749 §5.2: 400 (invalid_grant: a used, expired or revoked code or refresh token; invalid_request) and 401
    // (invalid_client) will be refused again; only the person connecting again helps.
    if (answer.status === 400 || answer.status === 401) {
      const text = xErrorText(answer, [...secrets, client.clientSecret]);
      throw new SocialRejectedError(`X refused the grant (${answer.status})${text ? `: ${text}` : ''}`);
    }
    throw xFailureOf(answer, 'the token request', [...secrets, client.clientSecret]);
  }

  return {
    scopes: xScopes,

    authorizationUrl({ client, callbackUrl, state, codeChallenge }) {
      const url = new URL(options.authorizeUrl);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        scope: xScopes.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.toString();
    },

    exchangeCode({ client, callbackUrl, code, codeVerifier }) {
      return tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: codeVerifier }, [code, codeVerifier]);
    },

    async refresh({ client, tokens }) {
      if (!tokens.refreshToken) throw new SocialRejectedError('X gave this connection no refresh token (offline.access); connect the account again');
      return tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken, tokens.accessToken]);
    },

    account(accessToken) {
      return xAccountOf(http, options.apiUrl, accessToken);
    },
  };
}
