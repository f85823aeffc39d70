import type { Answer } from '../platform-http.ts';
import type { OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialUnavailableError } from '../social-connector.ts';
import { createThreadsGraph, threadsAccountOf, threadsDefaults, type ThreadsGraphOptions } from './threads-graph.ts';

// Threads' OAuth 2 (https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions and
// https://developers.facebook.com/docs/threads/get-started/long-lived-tokens): the Authorization Window, a code
// exchanged for a short-lived token (one hour) that is at once exchanged for a long-lived one (60 days). Threads
// issues no refresh token: a long-lived token at least 24 hours old and not expired refreshes itself for another 60
// days.
//
// Threads documents no PKCE (its Authorization Window takes client_id, redirect_uri, scope, response_type and
// state): no code_challenge is sent, since a parameter Meta does not document is one it may refuse, and the code
// exchange needs the app secret, so an intercepted code is of no use without it. The single-use `state` still binds
// the authorization to the workspace that asked for it.

export type ThreadsOAuthOptions = ThreadsGraphOptions & {
  /** The Authorization Window (THREADS_AUTHORIZE_URL); Meta's by default. */
  authorizeUrl?: string | undefined;
};

// threads_read_replies: a part of a thread whose answer was lost is looked up among the account's replies
// (GET /{user-id}/replies), a GET of the reply endpoints, which need it
// (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies). Posting a reply needs no more than
// owning the thread's first post (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/create-replies).
const scopes = ['threads_basic', 'threads_content_publish', 'threads_read_replies'] as const;
const longLivedMs = 60 * 24 * 60 * 60 * 1000;
// Threads refreshes a long-lived token only once it is a day old: one with more than 59 of its 60 days left is kept.
const refreshableAfterMs = 24 * 60 * 60 * 1000;

/** Threads as an OAuth platform; the Threads app id and secret are the client id and secret. */
export function createThreadsOAuthPlatform(options: ThreadsOAuthOptions): OAuthPlatform {
  const graph = createThreadsGraph(options);

  /** The long-lived token an exchange or a refresh answered, with its expiry. */
  function longLivedOf(answer: Answer, what: string, secrets: string[]): OAuthTokens {
    if (answer.status !== 200) throw graph.failureOf(answer, what, secrets);
    const accessToken = graph.textField(answer, 'access_token', what);
    const expiresIn = answer.body.expires_in;
    if (typeof expiresIn !== 'number' || !(expiresIn > 0)) throw new SocialUnavailableError(`Threads answered ${what} without expires_in`);
    return { accessToken, expiresAt: Date.now() + expiresIn * 1000 };
  }

  return {
    scopes,

    authorizationUrl({ client, callbackUrl, state }) {
      const url = new URL(options.authorizeUrl ?? threadsDefaults.authorizeUrl);
      url.searchParams.set('client_id', client.clientId);
      url.searchParams.set('redirect_uri', callbackUrl);
      url.searchParams.set('scope', scopes.join(','));
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('state', state);
      return url.toString();
    },

    async exchangeCode({ client, callbackUrl, code }) {
      const secrets = [client.clientSecret, code];
      const short = await graph.post('/oauth/access_token', {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: callbackUrl,
      });
      if (short.status !== 200) throw graph.failureOf(short, 'the authorization code', secrets);
      const shortLived = graph.textField(short, 'access_token', 'the authorization code');
      const long = await graph.get('/access_token', { grant_type: 'th_exchange_token', client_secret: client.clientSecret, access_token: shortLived });
      return longLivedOf(long, 'the long-lived token exchange', [...secrets, shortLived]);
    },

    async refresh({ tokens }) {
      if (tokens.expiresAt - Date.now() > longLivedMs - refreshableAfterMs) return tokens;
      const answer = await graph.get('/refresh_access_token', { grant_type: 'th_refresh_token', access_token: tokens.accessToken });
      return longLivedOf(answer, 'the token refresh', [tokens.accessToken]);
    },

    account: (accessToken) => threadsAccountOf(graph, accessToken),
  };
}
