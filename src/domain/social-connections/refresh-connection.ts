import { oauthAppOf, oauthTokenFieldsOf } from '../../adapters/social/platform-module.ts';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { releaseConnectionLease, takeConnectionLease } from '../../adapters/social/connection-leases.ts';
import type { OAuthTokens } from '../../adapters/social/oauth-platform.ts';
import { SocialRejectedError, SocialUnavailableError, type OAuthCredentials, type SocialCredentials } from '../../adapters/social/social-connector.ts';
import { storableReason } from '../../common/validation/storable-text.ts';
import { recordEvent } from '../events/record-event.ts';
import { refreshMarginMs, type RefreshOutcome } from '../../../workflows/contracts/keep-connection-alive.ts';
import type { Deps } from '../deps.ts';

export function isOAuthCredentials(credentials: SocialCredentials): credentials is OAuthCredentials {
  return 'expiresAt' in credentials && 'accessToken' in credentials;
}

function tokensOf(credentials: OAuthCredentials): OAuthTokens {
  return {
    accessToken: credentials.accessToken,
    refreshToken: credentials.refreshToken,
    expiresAt: Date.parse(credentials.expiresAt),
    refreshTokenExpiresAt: credentials.refreshTokenExpiresAt ? Date.parse(credentials.refreshTokenExpiresAt) : undefined,
  };
}

/** The credentials with the tokens a platform granted; a platform that rotates no refresh token keeps the old one. */
function withTokens<C extends OAuthCredentials>(credentials: C, tokens: OAuthTokens): C {
  const fields = oauthTokenFieldsOf(tokens);
  return {
    ...credentials,
    ...fields,
    refreshToken: fields.refreshToken ?? credentials.refreshToken,
    refreshTokenExpiresAt: fields.refreshTokenExpiresAt ?? credentials.refreshTokenExpiresAt,
  };
}

/**
 * Marks the connection `needs_reauth` with the platform's words and records its `connection.expired` event, in the
 * caller's transaction.
 */
export async function markNeedsReauth(em: EntityManager, connection: SocialConnection, platformReason: string): Promise<{ eventId: string }> {
  // The platform's own words: kept readable whatever bytes they hold.
  const reason = storableReason(platformReason);
  connection.status = 'needs_reauth';
  connection.lastError = reason;
  const event = await recordEvent(em, {
    workspaceId: connection.workspaceId,
    type: 'connection.expired',
    postId: null,
    // One event per refusal: a retried refresh (OAuth, its tokens' expiry unchanged) finds the one it recorded; a
    // connection without expiring tokens is refused only by a verify, which is not retried, and may be refused again
    // after it was made active once more.
    sourceId: `connection-expired-${connection.id}-${connection.expiresAt?.getTime() ?? Date.now()}`,
    details: { connectionId: connection.id, platform: connection.platform, accountName: connection.accountName, reason },
  });
  await em.flush();
  return { eventId: event.id };
}

/**
 * Refreshes the connection's access token unless it is good for longer than the margin (`force`: whatever its
 * expiry, as of `asOf`, epoch ms, or now). Holds the row's refresh lease from reading the tokens to storing the new
 * ones, so two refreshes (the keep-alive workflow, a publish, a verify, on any replica) never both spend one refresh
 * token: the second waits, then finds the token the first stored and has nothing to do. The platform answers while
 * no transaction is open and no lock is held (connection-leases.ts says why). The new access token and the rotated
 * refresh token are stored in one update, made only while the lease is still this refresh's. A refusal marks the
 * connection `needs_reauth`; an outage or a rate limit throws as it is, changing nothing (never taken as a dead token).
 */
export async function refreshConnection(
  deps: Pick<Deps, 'orm' | 'secrets' | 'oauth'>,
  connectionId: string,
  options: { force?: boolean; asOf?: number } = {},
): Promise<RefreshOutcome> {
  const lease = await takeConnectionLease(deps.orm, connectionId, 'refresh');
  if (!lease) return { state: 'gone' };
  let held = true;
  try {
    const connection = await deps.orm.em.fork().findOne(SocialConnection, connectionId);
    if (!connection) return { state: 'gone' };
    if (connection.status === 'needs_reauth') return { state: 'needs_reauth', eventId: null };
    const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as SocialCredentials;
    const setup = deps.oauth[connection.platform];
    if (!isOAuthCredentials(credentials) || !setup) return { state: 'gone' };
    const expiresAt = Date.parse(credentials.expiresAt);
    // `asOf`: the keep-alive workflow's clock, which its timers keep (and a test skips).
    if (!options.force && expiresAt - (options.asOf ?? Date.now()) > refreshMarginMs) return { state: 'active', expiresAt };
    // The operator's setting, not the person's token: retried until the app that granted the tokens is configured again.
    const app = oauthAppOf(setup, credentials);
    if (!app?.client) {
      const which = credentials.app === 'authors' ? 'the client id and secret of its app for authors' : 'its client id and secret';
      throw new SocialUnavailableError(`${connection.platform} is not configured on this service (${which})`);
    }

    let tokens: OAuthTokens;
    try {
      tokens = await app.platform.refresh({ client: app.client, tokens: tokensOf(credentials) });
    } catch (error) {
      if (!(error instanceof SocialRejectedError)) throw error;
      const refused = await markRefused(deps, connectionId, lease, error.reason);
      held = false;
      return refused;
    }
    const written = await deps.orm.em.fork().nativeUpdate(
      SocialConnection,
      { id: connectionId, refreshLeaseOwner: lease },
      {
        credentialsSealed: deps.secrets.seal(JSON.stringify(withTokens(credentials, tokens))),
        expiresAt: new Date(tokens.expiresAt),
        lastError: null,
        refreshLeaseOwner: null,
        refreshLeaseUntil: null,
      },
    );
    if (written === 0) throw new SocialUnavailableError('the token refresh outlasted its lease; try again');
    held = false;
    return { state: 'active', expiresAt: tokens.expiresAt };
  } finally {
    if (held) await releaseConnectionLease(deps.orm, connectionId, 'refresh', lease);
  }
}

/** Marks the connection `needs_reauth` and gives the lease back, in one short transaction, if the lease is still `lease`. */
async function markRefused(deps: Pick<Deps, 'orm'>, connectionId: string, lease: string, reason: string): Promise<RefreshOutcome> {
  return deps.orm.em.fork().transactional(async (em) => {
    const connection = await em.findOne(SocialConnection, connectionId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!connection) return { state: 'gone' };
    // Another refresh took the lease after this one's ran out, and may have stored tokens that work: it decides.
    if (connection.refreshLeaseOwner !== lease) throw new SocialUnavailableError('the token refresh outlasted its lease; try again');
    connection.refreshLeaseOwner = null;
    connection.refreshLeaseUntil = null;
    return { state: 'needs_reauth', ...(await markNeedsReauth(em, connection, reason)) };
  });
}
