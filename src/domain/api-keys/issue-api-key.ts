import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import { generateApiKeySecret } from './api-key-secret.ts';

export type IssuedApiKey = { apiKey: ApiKey; key: string };

/** Creates a key record and returns the secret, which exists only in this return value from now on. */
export function issueApiKey(em: EntityManager, input: { workspaceId: string; name: string; expiresAt?: Date | null; scope?: ApiKeyScope }): IssuedApiKey {
  const secret = generateApiKeySecret();
  const apiKey = em.create(ApiKey, {
    workspaceId: input.workspaceId,
    name: input.name,
    keyHash: secret.hash,
    keyPrefix: secret.prefix,
    expiresAt: input.expiresAt ?? null,
    scope: input.scope ?? 'full',
  });
  return { apiKey, key: secret.key };
}
