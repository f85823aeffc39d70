import type { ApiKey } from '../../adapters/database/entities/api-key.ts';
import type { Schemas } from '../schemas.ts';

export function presentApiKey(apiKey: ApiKey): Schemas['ApiKeyListItem'] {
  return {
    id: apiKey.id,
    name: apiKey.name,
    keyPrefix: apiKey.keyPrefix,
    isActive: apiKey.isActive,
    scope: apiKey.scope,
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    createdAt: apiKey.createdAt.toISOString(),
  };
}

/** The only answer that carries the secret: it is shown once, at creation. */
export function presentCreatedApiKey(apiKey: ApiKey, key: string): Schemas['CreateApiKeyResponse'] {
  return {
    id: apiKey.id,
    key,
    prefix: apiKey.keyPrefix,
    name: apiKey.name,
    scope: apiKey.scope,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    createdAt: apiKey.createdAt.toISOString(),
  };
}

/** The new secret, shown once. */
export function presentRegeneratedApiKey(regenerated: { id: string; key: string; prefix: string }): Schemas['RegenerateApiKeyResponse'] {
  return { id: regenerated.id, key: regenerated.key, prefix: regenerated.prefix };
}
