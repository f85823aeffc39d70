import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/** What a key may do, each including the one before it (src/api/operation-scopes.ts maps operations to them). */
export const apiKeyScopes = ['read', 'publish', 'full'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    name: p.string().length(100),
    /** SHA-256 of the full key (hex); the key itself is never stored. */
    keyHash: p.string().length(64).unique(),
    /** The first characters of the key, shown in lists so people can tell keys apart. */
    keyPrefix: p.string().length(16),
    isActive: p.boolean().default(true),
    scope: p.enum(apiKeyScopes).default('full'),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type ApiKey = InferEntity<typeof ApiKey>;
