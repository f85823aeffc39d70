import { createMetaGraph, type MetaGraph } from '../meta/meta-graph.ts';
import type { PlatformHttpOptions } from '../platform-http.ts';
import { type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// The Threads Graph API (https://developers.facebook.com/docs/threads), spoken as every Meta Graph API is (meta-graph.ts).

export const threadsDefaults = { apiUrl: 'https://graph.threads.net', authorizeUrl: 'https://threads.net/oauth/authorize' } as const;

export type ThreadsGraphOptions = PlatformHttpOptions & {
  /** The Threads Graph API's base URL (THREADS_API_URL); Meta's by default. */
  apiUrl?: string | undefined;
};

/** Talks to the Threads Graph API at `options.apiUrl`, public addresses only unless allowed. */
export function createThreadsGraph(options: ThreadsGraphOptions): MetaGraph {
  return createMetaGraph({ name: platformNames.threads, apiUrlSetting: 'THREADS_API_URL' }, { ...options, apiUrl: options.apiUrl ?? threadsDefaults.apiUrl });
}

/**
 * Who a Threads access token belongs to (https://developers.facebook.com/docs/threads/threads-profiles): `@username`
 * and the Threads user id, the `{user-id}` of the publishing endpoints.
 */
export async function threadsAccountOf(graph: MetaGraph, accessToken: string): Promise<VerifiedAccount> {
  const answer = await graph.get('/v1.0/me', { fields: 'id,username', access_token: accessToken });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the request', [accessToken]);
  return { accountName: `@${graph.textField(answer, 'username', 'the profile')}`, accountId: graph.textField(answer, 'id', 'the profile') };
}
