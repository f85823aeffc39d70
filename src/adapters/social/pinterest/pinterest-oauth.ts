import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { tokensOfAnswer } from '../oauth-token-answer.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialRejectedError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { pinterestAccountOf, pinterestApi, pinterestErrorText, pinterestFailureOf } from './pinterest-api.ts';

// Pinterest's OAuth 2 (https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/):
// the person grants access at www.pinterest.com/oauth/, the code is exchanged at /v5/oauth/token by the app with HTTP
// Basic (the description's `security: basic`), form-encoded. Access tokens last 30 days; with continuous refresh
// (every app made since 25 September 2025) each refresh also hands out a new 60-day refresh token and retires the
// one it was given, so the newest is always kept. Pinterest documents no PKCE: the challenge is not sent.

export type PinterestEndpoints = {
  /** PINTEREST_API_URL: the API and its token endpoint (https://api.pinterest.com). */
  apiUrl: string;
  /** PINTEREST_AUTHORIZE_URL: the page a person grants access on (https://www.pinterest.com/oauth/). */
  authorizeUrl: string;
};

export type PinterestOAuthOptions = PlatformHttpOptions & PinterestEndpoints;

// What posting needs: the account, its boards, and Pins (POST /pins asks for every one of the four board and pin
// scopes, and POST /media for pins:read and pins:write, by the description's `security`).
const pinterestScopes = ['user_accounts:read', 'boards:read', 'boards:write', 'pins:read', 'pins:write'] as const;

// A token answer without expires_in: Pinterest documents 30 days.
const defaultLifetimeSeconds = 30 * 24 * 60 * 60;

function basicAuth({ clientId, clientSecret }: OAuthClient): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

/** Pinterest's side of OAuth 2 (see OAuthPlatform). */
export function createPinterestOAuth(options: PinterestOAuthOptions): OAuthPlatform {
  const http = createPlatformHttp(platformNames.pinterest, options);

  async function tokenRequest(client: OAuthClient, form: Record<string, string>, secrets: string[]): Promise<OAuthTokens> {
    const answer = await http.request({
      method: 'POST',
      url: pinterestApi(options.apiUrl, '/oauth/token'),
      headers: { authorization: basicAuth(client), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(new URLSearchParams(form).toString()),
    });
    if (answer.status === 200) return tokensOfAnswer(answer, http, { defaultSeconds: defaultLifetimeSeconds, refreshField: 'refresh_token_expires_in' });
    // A used, expired or retired code or refresh token, or a client Pinterest does not know: asked again, refused again.
    if (answer.status === 400 || answer.status === 401) {
      const text = pinterestErrorText(answer, [...secrets, client.clientSecret]);
      throw new SocialRejectedError(`Pinterest refused the grant (${answer.status})${text ? `: ${text}` : ''}`);
    }
    throw pinterestFailureOf(answer, 'the token request', [...secrets, client.clientSecret]);
  }

  return {
    scopes: pinterestScopes,

    authorizationUrl({ client, callbackUrl, state }) {
      const url = new URL(options.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        response_type: 'code',
        scope: pinterestScopes.join(','),
        state,
      }).toString();
      return url.toString();
    },

    exchangeCode({ client, callbackUrl, code }) {
      return tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl }, [code]);
    },

    async refresh({ client, tokens }) {
      if (!tokens.refreshToken) throw new SocialRejectedError('Pinterest gave this connection no refresh token; connect the account again');
      return tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken, tokens.accessToken]);
    },

    account(accessToken) {
      return pinterestAccountOf({ http, apiUrl: options.apiUrl, token: accessToken });
    },
  };
}
