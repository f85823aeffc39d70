import type { Answer } from '../platform-http.ts';
import type { OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialUnavailableError } from '../social-connector.ts';
import { createFacebookGraph, facebookDefaults, facebookPath, facebookUserOf, type FacebookGraphOptions } from './facebook-graph.ts';

// Facebook Login's manual flow (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow): the
// login dialog, the code exchanged for a short-lived user token, at once exchanged for a long-lived one (60 days;
// https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived). Page tokens derived from
// a long-lived user token never expire, so a connection posts for as long as the person keeps the Page and the app's
// permissions; the keep-alive workflow exchanges the user token again before its 60 days run out. No refresh token.
// Facebook Login documents no PKCE for this flow: none is sent (the exchange needs the app secret anyway).

export type FacebookOAuthOptions = FacebookGraphOptions & {
  /** The login dialog (FACEBOOK_AUTHORIZE_URL); Facebook's by default. */
  authorizeUrl?: string | undefined;
};

// Listing the Pages and posting to one (https://developers.facebook.com/docs/pages-api/posts#before-you-start).
const scopes = ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'] as const;
// Exchanged again only in its last 10 days: a fresh long-lived token is kept as it is.
const exchangeAgainWithinMs = 10 * 24 * 60 * 60 * 1000;

/** Facebook as an OAuth platform; the Meta app's id and secret are the client id and secret. */
export function createFacebookOAuth(options: FacebookOAuthOptions): OAuthPlatform {
  const graph = createFacebookGraph(options);

  function tokensOf(answer: Answer, what: string, secrets: string[]): OAuthTokens {
    if (answer.status !== 200) throw graph.failureOf(answer, what, secrets);
    const accessToken = graph.textField(answer, 'access_token', what);
    const expiresIn = answer.body.expires_in;
    if (typeof expiresIn !== 'number' || !(expiresIn > 0)) throw new SocialUnavailableError(`Facebook answered ${what} without expires_in`);
    return { accessToken, expiresAt: Date.now() + expiresIn * 1000 };
  }

  async function longLived(clientId: string, clientSecret: string, token: string, secrets: string[]): Promise<OAuthTokens> {
    const answer = await graph.get(facebookPath('oauth', 'access_token'), {
      grant_type: 'fb_exchange_token',
      client_id: clientId,
      client_secret: clientSecret,
      fb_exchange_token: token,
    });
    return tokensOf(answer, 'the long-lived token exchange', [...secrets, clientSecret, token]);
  }

  return {
    scopes,

    authorizationUrl({ client, callbackUrl, state }) {
      const url = new URL(options.authorizeUrl ?? facebookDefaults.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        state,
        scope: scopes.join(','),
        response_type: 'code',
        // The manual flow's re-asking: the dialog asks again for what the person declined before rather than
        // skipping it (Facebook documents no parameter that always shows the whole dialog; it shows "continue as"
        // to a person who logged in to the app before).
        auth_type: 'rerequest',
      }).toString();
      return url.toString();
    },

    async exchangeCode({ client, callbackUrl, code }) {
      const answer = await graph.get(facebookPath('oauth', 'access_token'), {
        client_id: client.clientId,
        redirect_uri: callbackUrl,
        client_secret: client.clientSecret,
        code,
      });
      const short = tokensOf(answer, 'the authorization code', [client.clientSecret, code]);
      return longLived(client.clientId, client.clientSecret, short.accessToken, [code]);
    },

    async refresh({ client, tokens }) {
      if (tokens.expiresAt - Date.now() > exchangeAgainWithinMs) return tokens;
      return longLived(client.clientId, client.clientSecret, tokens.accessToken, []);
    },

    account: (accessToken) => facebookUserOf(graph, accessToken),
  };
}
