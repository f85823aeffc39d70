import { createMetaGraph, type MetaGraph } from '../meta/meta-graph.ts';
import type { PlatformHttpOptions } from '../platform-http.ts';
import { SocialRejectedError, type Destination, type VerifiedAccount } from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Facebook's Graph API (https://developers.facebook.com/docs/graph-api), spoken as every Meta Graph API is
// (meta-graph.ts): the person's own token (Facebook Login) reads who they are and the Pages they manage; each Page
// posts with its own token, derived from the person's.

export const facebookDefaults = { apiUrl: 'https://graph.facebook.com', authorizeUrl: 'https://www.facebook.com/v24.0/dialog/oauth' } as const;

/** The Graph API version our requests name. */
const facebookVersion = 'v24.0';

export type FacebookGraphOptions = PlatformHttpOptions & {
  /** The Graph API's base URL (FACEBOOK_API_URL); Meta's by default. */
  apiUrl?: string | undefined;
};

/** Talks to the Graph API at `options.apiUrl`, public addresses only unless allowed. */
export function createFacebookGraph(options: FacebookGraphOptions): MetaGraph {
  return createMetaGraph(
    { name: platformNames.facebook, apiUrlSetting: 'FACEBOOK_API_URL' },
    { ...options, apiUrl: options.apiUrl ?? facebookDefaults.apiUrl },
  );
}

/** A path of the Graph API, in the version we speak. */
export function facebookPath(...parts: string[]): string {
  // An upload session's id (`upload:…`) keeps its colon, as the Resumable Upload API writes it.
  return `/${facebookVersion}/${parts.map((part) => encodeURIComponent(part).replace(/%3A/gi, ':')).join('/')}`;
}

/** Who a user token belongs to (https://developers.facebook.com/docs/graph-api/reference/user): their name and id. */
export async function facebookUserOf(graph: MetaGraph, userToken: string): Promise<VerifiedAccount> {
  const answer = await graph.get(facebookPath('me'), { fields: 'id,name', access_token: userToken });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the request', [userToken]);
  return { accountName: graph.textField(answer, 'name', 'the profile'), accountId: graph.textField(answer, 'id', 'the profile') };
}

type ManagedPage = { id: string; name: string; accessToken: string; tasks: string[] };

/**
 * The Pages the person manages, each with its Page token (https://developers.facebook.com/docs/pages-api/getting-started):
 * one derived from a long-lived user token never expires
 * (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived#long-lived-page-token).
 */
async function managedPages(graph: MetaGraph, userToken: string): Promise<ManagedPage[]> {
  const answer = await graph.get(facebookPath('me', 'accounts'), { fields: 'id,name,access_token,tasks', limit: '100', access_token: userToken });
  if (answer.status !== 200) throw graph.failureOf(answer, 'the list of Pages', [userToken]);
  const pages = Array.isArray(answer.body.data) ? (answer.body.data as Array<Record<string, unknown>>) : [];
  return pages.flatMap((page) =>
    typeof page.id === 'string' && typeof page.name === 'string' && typeof page.access_token === 'string'
      ? [{ id: page.id, name: page.name, accessToken: page.access_token, tasks: Array.isArray(page.tasks) ? page.tasks.map(String) : [] }]
      : [],
  );
}

// Posting as a Page needs the CREATE_CONTENT task on it (https://developers.facebook.com/docs/pages-api/overview#tasks).
const canPost = (page: ManagedPage) => page.tasks.includes('CREATE_CONTENT');

/** The Pages the person may post to, for the connection to choose one. */
export async function facebookPagesOf(graph: MetaGraph, userToken: string): Promise<Destination[]> {
  return (await managedPages(graph, userToken)).filter(canPost).map(({ id, name }) => ({ id, name }));
}

/** The Page token of a Page the person may post to, derived from their token; refused when they no longer may. */
export async function pageTokenOf(graph: MetaGraph, userToken: string, pageId: string): Promise<string> {
  const page = (await managedPages(graph, userToken)).find((candidate) => candidate.id === pageId);
  if (!page || !canPost(page)) {
    throw new SocialRejectedError('The person who connected no longer manages the chosen Facebook Page (or may not post to it): choose another', 'destination');
  }
  return page.accessToken;
}
