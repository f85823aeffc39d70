import type { ApiKey } from '../../data/entities/api-key.ts';
import type { Schemas } from '../schemas.ts';

export function presentApiKey(apiKey: ApiKey): Schemas['ApiKeyListItem'] {
  return {
    id: apiKey.id,
    name: apiKey.name,
    keyPrefix: apiKey.keyPrefix,
    isActive: apiKey.isActive,
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    createdAt: apiKey.createdAt.toISOString(),
  };
}
