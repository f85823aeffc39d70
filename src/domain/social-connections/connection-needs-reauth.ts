import type { SocialConnection } from '../../adapters/database/entities/social-connection.ts';

/**
 * Whether publishing to the connection would fail until the customer connects the account again: an OAuth
 * connection whose refresh the platform refused has `status` `needs_reauth`; connections without a status (a token
 * or app password, checked when it is used) never do.
 */
export function connectionNeedsReauth(connection: SocialConnection): boolean {
  return 'status' in connection && connection.status === 'needs_reauth';
}
