import type { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { Schemas } from '../schemas.ts';

/** Never the credentials. */
export function presentSocialConnection(connection: SocialConnection): Schemas['SocialConnection'] {
  return {
    id: connection.id,
    platform: connection.platform,
    serverUrl: connection.serverUrl,
    accountName: connection.accountName,
    ...(connection.postLanguage ? { postLanguage: connection.postLanguage } : {}),
    destination: connection.destinationId ? { id: connection.destinationId, name: connection.destinationName ?? connection.destinationId } : null,
    settings: { ...connection.settings },
    status: connection.status,
    expiresAt: connection.expiresAt?.toISOString() ?? null,
    lastError: connection.lastError ?? null,
    createdAt: connection.createdAt.toISOString(),
  };
}
