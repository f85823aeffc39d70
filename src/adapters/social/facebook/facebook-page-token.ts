import type { MetaGraph } from '../meta/meta-graph.ts';
import type { SessionStore } from '../social-connector.ts';
import { pageTokenOf } from './facebook-graph.ts';

// The connection holds the chosen Page's token, derived from the person's long-lived token as Meta documents
// (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived#long-lived-page-token): it
// never expires, so it is asked for once per Page and kept in the connection's session (sealed in its row, shared by
// every replica) beside what else the session holds. A held token Facebook refuses is derived again once; a person
// who stops managing the Page makes that derivation, and so the publication, fail saying so.

const field = 'facebookPageTokens';

function tokensIn(stored: string | undefined): { tokens: Record<string, string>; rest: Record<string, unknown> } {
  try {
    const { [field]: tokens, ...rest } = JSON.parse(stored ?? '{}') as Record<string, unknown>;
    return { tokens: typeof tokens === 'object' && tokens !== null ? (tokens as Record<string, string>) : {}, rest };
  } catch {
    return { tokens: {}, rest: {} };
  }
}

/**
 * The Page's token: the one held, or one derived now and held from now on; `fresh` derives it again in place of the
 * one held, which Facebook refused (a Page token is invalidated with the person's sessions, a password change say).
 */
export async function heldPageToken(graph: MetaGraph, sessions: SessionStore, userToken: string, pageId: string, fresh = false): Promise<string> {
  const held = tokensIn(await sessions.read()).tokens[pageId];
  if (!fresh && typeof held === 'string' && held) return held;
  const derived = await pageTokenOf(graph, userToken, pageId);
  await sessions.renew((stored) => {
    const { rest } = tokensIn(stored);
    // Only the chosen Page's token is held: a Page chosen before is no longer posted to.
    return Promise.resolve(JSON.stringify({ ...rest, [field]: { [pageId]: derived } }));
  });
  return derived;
}
