import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { tokensOfAnswer } from '../oauth-token-answer.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { rateLimitWaitMs } from '../rate-limit-wait.ts';
import { SocialRateLimitedError, SocialRejectedError, SocialUnavailableError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { tikTokAccountOf, tikTokApi, tikTokErrorText, tikTokFailureOf } from './tiktok-api.ts';

// Login Kit for the web (https://developers.tiktok.com/doc/login-kit-web): the person consents at TikTok's page, which
// knows the app by its `client_key` (TikTok's name for the client id) and takes the scopes comma-separated. The code is
// exchanged at /v2/oauth/token/ with the key and secret in the form
// (https://developers.tiktok.com/doc/oauth-user-access-token-management). Access tokens last a day (`expires_in`),
// refresh tokens a year (`refresh_expires_in`), and a refresh "may" hand out a new refresh token: the newest is kept.
// TikTok's web flow documents no PKCE (only its desktop and mobile kits do): the challenge is not sent.

export type TikTokEndpoints = {
  /** TIKTOK_API_URL: the Open API and its token endpoint (https://open.tiktokapis.com). */
  apiUrl: string;
  /** TIKTOK_AUTHORIZE_URL: the page a person grants access on (https://www.tiktok.com/v2/auth/authorize/). */
  authorizeUrl: string;
};

export type TikTokOAuthOptions = PlatformHttpOptions & TikTokEndpoints;

// https://developers.tiktok.com/doc/scopes-overview: the account's name (user/info) and Direct Post (creator_info,
// video/init, status/fetch).
const tikTokScopes = ['user.info.basic', 'video.publish'] as const;

// Token answers without lifetimes: the management page's 24 hours.
const defaultLifetimeSeconds = 86_400;

// https://developers.tiktok.com/doc/oauth-error-handling: errors that say "try again later", not "never".
const outages = new Set(['temporarily_unavailable', 'server_error']);

/** TikTok's side of OAuth 2 (see OAuthPlatform). */
export function createTikTokOAuth(options: TikTokOAuthOptions): OAuthPlatform {
  const http = createPlatformHttp(platformNames.tiktok, options);

  async function tokenRequest(client: OAuthClient, form: Record<string, string>, secrets: string[]): Promise<OAuthTokens> {
    const answer = await http.request({
      method: 'POST',
      url: tikTokApi(options.apiUrl, '/oauth/token/'),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(new URLSearchParams({ ...form, client_key: client.clientId, client_secret: client.clientSecret }).toString()),
    });
    const hidden = [...secrets, client.clientSecret];
    // TikTok may refuse with 200 and an `error` in place of the tokens: the body decides, not the status.
    const error = answer.body.error;
    if (answer.status === 200 && !error) return tokensOfAnswer(answer, http, { defaultSeconds: defaultLifetimeSeconds, refreshField: 'refresh_expires_in' });
    const detail = `(${answer.status})${tikTokErrorText(answer, hidden) ? `: ${tikTokErrorText(answer, hidden)}` : ''}`;
    if (error === 'rate_limit_exceeded' || answer.status === 429) {
      throw new SocialRateLimitedError(
        `TikTok rate limit reached ${detail}`,
        rateLimitWaitMs(answer.headers, () => Number.NaN),
      );
    }
    if ((typeof error === 'string' && outages.has(error)) || answer.status >= 500) throw new SocialUnavailableError(`TikTok is unavailable ${detail}`);
    // invalid_grant (a used, expired or revoked code or refresh token), invalid_client: asked again, refused again.
    if (typeof error === 'string' || answer.status === 400 || answer.status === 401) throw new SocialRejectedError(`TikTok refused the grant ${detail}`);
    throw tikTokFailureOf(answer, 'the token request', hidden);
  }

  return {
    scopes: tikTokScopes,

    authorizationUrl({ client, callbackUrl, state }) {
      const url = new URL(options.authorizeUrl);
      url.search = new URLSearchParams({
        client_key: client.clientId,
        scope: tikTokScopes.join(','),
        response_type: 'code',
        redirect_uri: callbackUrl,
        state,
        // Login Kit for Web's "always display the authorization page": a person signed in to TikTok who granted the
        // app before is otherwise sent straight back, without seeing what they grant (or to whom).
        disable_auto_auth: '1',
      }).toString();
      return url.toString();
    },

    exchangeCode({ client, callbackUrl, code }) {
      return tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl }, [code]);
    },

    async refresh({ client, tokens }) {
      if (!tokens.refreshToken) throw new SocialRejectedError('TikTok gave this connection no refresh token; connect the account again');
      return tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken, tokens.accessToken]);
    },

    account(accessToken) {
      return tikTokAccountOf({ http, apiUrl: options.apiUrl, token: accessToken });
    },
  };
}
