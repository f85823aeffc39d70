import { createPlatformHttp, type PlatformHttpOptions } from '../platform-http.ts';
import { tokensOfAnswer } from '../oauth-token-answer.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialRejectedError } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';
import { youTubeChannelOf, youTubeErrorText, youTubeFailureOf } from './youtube-api.ts';

// Google's OAuth 2.0 for web server apps (https://developers.google.com/identity/protocols/oauth2/web-server): the
// person consents at Google's page with `access_type=offline` (what gets a refresh token) and `prompt=consent` (so a
// person connecting again gets one again), PKCE S256; the code is exchanged at the token endpoint with the client id
// and secret in the form. Access tokens last an hour; a refresh hands out no new refresh token (it does not rotate).

export type YouTubeEndpoints = {
  /** YOUTUBE_API_URL: the Data API and its upload host (https://www.googleapis.com). */
  apiUrl: string;
  /** YOUTUBE_AUTHORIZE_URL: Google's consent page. */
  authorizeUrl: string;
  /** YOUTUBE_TOKEN_URL: Google's token endpoint. */
  tokenUrl: string;
};

export type YouTubeOAuthOptions = PlatformHttpOptions & YouTubeEndpoints;

// Uploading (videos.insert), and reading the channel and its uploads (channels.list, videos.list, playlistItems.list),
// by the scopes the discovery document gives each method.
const youTubeScopes = ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly'] as const;

// A token answer without expires_in: Google documents an hour.
const defaultLifetimeSeconds = 3600;

/** YouTube's side of OAuth 2, through Google (see OAuthPlatform). */
export function createYouTubeOAuth(options: YouTubeOAuthOptions): OAuthPlatform {
  const http = createPlatformHttp(platformNames.youtube, options);

  async function tokenRequest(client: OAuthClient, form: Record<string, string>, secrets: string[]): Promise<OAuthTokens> {
    const answer = await http.request({
      method: 'POST',
      url: new URL(options.tokenUrl),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(new URLSearchParams({ ...form, client_id: client.clientId, client_secret: client.clientSecret }).toString()),
    });
    if (answer.status === 200) return tokensOfAnswer(answer, http, { defaultSeconds: defaultLifetimeSeconds });
    // invalid_grant (a used or revoked code or refresh token), invalid_client: asked again, refused again.
    if (answer.status === 400 || answer.status === 401) {
      const text = youTubeErrorText(answer, [...secrets, client.clientSecret]);
      throw new SocialRejectedError(`Google refused the grant (${answer.status})${text ? `: ${text}` : ''}`);
    }
    throw youTubeFailureOf(answer, 'the token request', [...secrets, client.clientSecret]);
  }

  return {
    scopes: youTubeScopes,

    authorizationUrl({ client, callbackUrl, state, codeChallenge }) {
      const url = new URL(options.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        response_type: 'code',
        scope: youTubeScopes.join(' '),
        access_type: 'offline',
        prompt: 'consent',
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
      if (!tokens.refreshToken) throw new SocialRejectedError('Google gave this connection no refresh token; connect the account again');
      return tokenRequest(client, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken, tokens.accessToken]);
    },

    account(accessToken) {
      return youTubeChannelOf({ http, apiUrl: options.apiUrl, token: accessToken });
    },
  };
}
