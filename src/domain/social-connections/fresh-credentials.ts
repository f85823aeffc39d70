import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { SocialCredentials } from '../../adapters/social/social-connector.ts';
import type { Deps } from '../deps.ts';
import { isOAuthCredentials, refreshConnection } from './refresh-connection.ts';
import { refreshMarginMs, type RefreshOutcome } from '../../../workflows/contracts/keep-connection-alive.ts';

/**
 * The credentials sealed in the row, with the destination chosen for it and its settings (kept in their own columns;
 * only a platform with destinations or settings has them), as its connector takes them.
 */
function credentialsOf(deps: Pick<Deps, 'secrets'>, connection: SocialConnection): SocialCredentials {
  const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as SocialCredentials;
  return {
    ...credentials,
    ...(connection.destinationId ? { destination: connection.destinationId } : {}),
    ...(connection.settings ? { settings: connection.settings } : {}),
  };
}

/**
 * The connection's credentials, with an OAuth access token refreshed first when it expires within the margin (its
 * keep-alive workflow normally has done so; an outage may have held it up). `refresh` is the outcome when a refresh
 * was attempted: `needs_reauth` means the platform refused it and the connection is marked so. Outages and rate
 * limits of the refresh throw as they are.
 */
export async function freshCredentials(
  deps: Pick<Deps, 'orm' | 'secrets' | 'oauth'>,
  connection: SocialConnection,
): Promise<{ credentials: SocialCredentials; refresh: RefreshOutcome | null }> {
  const credentials = credentialsOf(deps, connection);
  if (!isOAuthCredentials(credentials)) return { credentials, refresh: null };
  // Good for longer than the margin: nothing to refresh, so no need to take the row's refresh lease.
  if (Date.parse(credentials.expiresAt) - Date.now() > refreshMarginMs) return { credentials, refresh: null };
  const refresh = await refreshConnection(deps, connection.id);
  if (refresh.state !== 'active') return { credentials, refresh };
  const stored = await deps.orm.em.fork().findOneOrFail(SocialConnection, connection.id);
  return { credentials: credentialsOf(deps, stored), refresh };
}
