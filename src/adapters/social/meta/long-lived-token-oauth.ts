import type { Answer } from '../platform-http.ts';
import type { OAuthClient, OAuthPlatform, OAuthTokens } from '../oauth-platform.ts';
import { SocialUnavailableError, type VerifiedAccount } from '../social-connector.ts';
import type { MetaGraph } from './meta-graph.ts';

// The OAuth 2 of Meta's platforms that log people in themselves (Threads, Instagram with Instagram Login): a consent
// window, a code exchanged for a short-lived token (one hour) that is at once exchanged for a long-lived one (60
// days). They issue no refresh token: a long-lived token at least 24 hours old and not expired refreshes itself for
// another 60 days (https://developers.facebook.com/docs/threads/get-started/long-lived-tokens,
// https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token).
//
// Neither documents PKCE (their windows take client_id, redirect_uri, scope, response_type and state): no
// code_challenge is sent, since a parameter Meta does not document is one it may refuse, and the code exchange needs
// the app secret, so an intercepted code is of no use without it. The single-use `state` still binds the
// authorization to the workspace that asked for it.

export type LongLivedTokenFlow = {
  graph: MetaGraph;
  /** The platform's name, in what a failure says. */
  name: string;
  scopes: readonly string[];
  /** The consent window. */
  authorizeUrl: string;
  /**
   * What the consent window takes to show itself again to a person who granted the app before, where the platform
   * documents it (Instagram's `force_reauth`); Threads documents none.
   */
  askAgain?: Record<string, string>;
  /** Where the code is exchanged for a short-lived token: a path of the graph, or another host of the platform's. */
  codeExchangeUrl: string;
  /** The grant types of the long-lived token's exchange and refresh (`th_exchange_token`, `ig_refresh_token`...). */
  grants: { exchange: string; refresh: string };
  account(accessToken: string): Promise<VerifiedAccount>;
};

const longLivedMs = 60 * 24 * 60 * 60 * 1000;
// A long-lived token refreshes only once it is a day old: one with more than 59 of its 60 days left is kept.
const refreshableAfterMs = 24 * 60 * 60 * 1000;

/**
 * The short-lived token a code exchange answered: at the top of the body (Threads, and Instagram in practice), or as
 * the first of `data` (Instagram's documented shape).
 */
function shortLivedTokenOf(flow: LongLivedTokenFlow, answer: Answer): string {
  const [first] = Array.isArray(answer.body.data) ? (answer.body.data as unknown[]) : [];
  const nested = typeof first === 'object' && first !== null ? (first as Record<string, unknown>).access_token : undefined;
  if (typeof nested === 'string' && nested) return nested;
  return flow.graph.textField(answer, 'access_token', 'the authorization code');
}

/** The platform as an OAuth platform; its app id and secret are the client id and secret. */
export function createLongLivedTokenOAuth(flow: LongLivedTokenFlow): OAuthPlatform {
  const { graph } = flow;

  /** The long-lived token an exchange or a refresh answered, with its expiry. */
  function longLivedOf(answer: Answer, what: string, secrets: string[]): OAuthTokens {
    if (answer.status !== 200) throw graph.failureOf(answer, what, secrets);
    const accessToken = graph.textField(answer, 'access_token', what);
    const expiresIn = answer.body.expires_in;
    if (typeof expiresIn !== 'number' || !(expiresIn > 0)) throw new SocialUnavailableError(`${flow.name} answered ${what} without expires_in`);
    return { accessToken, expiresAt: Date.now() + expiresIn * 1000 };
  }

  return {
    scopes: flow.scopes,

    authorizationUrl({ client, callbackUrl, state }: { client: OAuthClient; callbackUrl: string; state: string }) {
      const url = new URL(flow.authorizeUrl);
      url.searchParams.set('client_id', client.clientId);
      url.searchParams.set('redirect_uri', callbackUrl);
      url.searchParams.set('scope', flow.scopes.join(','));
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('state', state);
      for (const [name, value] of Object.entries(flow.askAgain ?? {})) url.searchParams.set(name, value);
      return url.toString();
    },

    async exchangeCode({ client, callbackUrl, code }) {
      const secrets = [client.clientSecret, code];
      const short = await graph.post(flow.codeExchangeUrl, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: callbackUrl,
      });
      if (short.status !== 200) throw graph.failureOf(short, 'the authorization code', secrets);
      const shortLived = shortLivedTokenOf(flow, short);
      const long = await graph.get('/access_token', { grant_type: flow.grants.exchange, client_secret: client.clientSecret, access_token: shortLived });
      return longLivedOf(long, 'the long-lived token exchange', [...secrets, shortLived]);
    },

    async refresh({ tokens }) {
      if (tokens.expiresAt - Date.now() > longLivedMs - refreshableAfterMs) return tokens;
      const answer = await graph.get('/refresh_access_token', { grant_type: flow.grants.refresh, access_token: tokens.accessToken });
      return longLivedOf(answer, 'the token refresh', [tokens.accessToken]);
    },

    account: (accessToken) => flow.account(accessToken),
  };
}
