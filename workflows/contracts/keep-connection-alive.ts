// What starting keepConnectionAlive takes and answers, and the refresh its activity reports: importing nothing of ours.

export type KeepConnectionAliveInput = { connectionId: string };

/** Why the workflow ended: the connection was deleted (or holds no OAuth tokens), or it needs the person again. */
export type KeepConnectionAliveResult = { ended: 'deleted' | 'needs_reauth' };

/**
 * How long before its access token expires a connection is refreshed: ten minutes, so that a refresh that meets an
 * outage has several retries (10 s, 20 s, 40 s ... ) before the token runs out, and a publish that starts just
 * before does not carry a token that expires during its own request.
 */
export const refreshMarginMs = 10 * 60 * 1000;

export type RefreshOutcome =
  /** The connection holds a token good until `expiresAt` (epoch ms): refreshed now, or not yet due. */
  | { state: 'active'; expiresAt: number }
  /** The platform refused the refresh: the connection is `needs_reauth`; `eventId` is its new `connection.expired` event. */
  | { state: 'needs_reauth'; eventId: string | null }
  /** The connection was deleted, or holds no token to refresh. */
  | { state: 'gone' };
