import { createLongLivedTokenOAuth } from '../meta/long-lived-token-oauth.ts';
import type { OAuthPlatform } from '../oauth-platform.ts';
import { platformNames } from '../social-platforms.ts';
import { createThreadsGraph, threadsAccountOf, threadsDefaults, type ThreadsGraphOptions } from './threads-graph.ts';

// Threads' OAuth 2 (https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions):
// Meta's long-lived tokens (long-lived-token-oauth.ts), the code exchanged on the Threads Graph API itself.

export type ThreadsOAuthOptions = ThreadsGraphOptions & {
  /** The Authorization Window (THREADS_AUTHORIZE_URL); Meta's by default. */
  authorizeUrl?: string | undefined;
};

// threads_read_replies: a part of a thread whose answer was lost is looked up among the account's replies
// (GET /{user-id}/replies), a GET of the reply endpoints, which need it
// (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies). Posting a reply needs no more than
// owning the thread's first post (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/create-replies).
const scopes = ['threads_basic', 'threads_content_publish', 'threads_read_replies'] as const;

/** Threads as an OAuth platform; the Threads app id and secret are the client id and secret. */
export function createThreadsOAuthPlatform(options: ThreadsOAuthOptions): OAuthPlatform {
  const graph = createThreadsGraph(options);
  return createLongLivedTokenOAuth({
    graph,
    name: platformNames.threads,
    scopes,
    authorizeUrl: options.authorizeUrl ?? threadsDefaults.authorizeUrl,
    codeExchangeUrl: '/oauth/access_token',
    grants: { exchange: 'th_exchange_token', refresh: 'th_refresh_token' },
    account: (accessToken) => threadsAccountOf(graph, accessToken),
  });
}
