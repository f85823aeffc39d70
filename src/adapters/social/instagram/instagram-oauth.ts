import { createLongLivedTokenOAuth } from '../meta/long-lived-token-oauth.ts';
import type { OAuthPlatform } from '../oauth-platform.ts';
import { platformNames } from '../social-platforms.ts';
import { createInstagramGraph, instagramAccountOf, instagramDefaults, type InstagramGraphOptions } from './instagram-graph.ts';

// Instagram's OAuth 2 through Instagram Login (Business Login for Instagram,
// https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login): Meta's
// long-lived tokens (long-lived-token-oauth.ts), the code exchanged at api.instagram.com. Instagram Login rather than
// Facebook Login for Business: the person signs in with the Instagram account itself, which need not be linked to a
// Facebook Page, and the token publishes for that account alone.

export type InstagramOAuthOptions = InstagramGraphOptions & {
  /** The consent window (INSTAGRAM_AUTHORIZE_URL); Instagram's by default. */
  authorizeUrl?: string | undefined;
  /** The code exchange (INSTAGRAM_TOKEN_URL); Instagram's by default. */
  tokenUrl?: string | undefined;
};

// What publishing needs (https://developers.facebook.com/docs/instagram-platform/content-publishing#requirements);
// the account's own media, read to find a post whose answer was lost, needs no more than the basic scope.
const scopes = ['instagram_business_basic', 'instagram_business_content_publish'] as const;

/** Instagram as an OAuth platform; the Instagram app's id and secret are the client id and secret. */
export function createInstagramOAuth(options: InstagramOAuthOptions): OAuthPlatform {
  const graph = createInstagramGraph(options);
  return createLongLivedTokenOAuth({
    graph,
    name: platformNames.instagram,
    scopes,
    authorizeUrl: options.authorizeUrl ?? instagramDefaults.authorizeUrl,
    // As in the embed URL Meta's App Dashboard makes for Business Login: the person signs in again, and sees what
    // they grant, even when they granted it before.
    askAgain: { force_reauth: 'true' },
    codeExchangeUrl: options.tokenUrl ?? instagramDefaults.tokenUrl,
    grants: { exchange: 'ig_exchange_token', refresh: 'ig_refresh_token' },
    account: (accessToken) => instagramAccountOf(graph, accessToken),
  });
}
