import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { newId } from '../new-id.ts';
import { Workspace } from './workspace.ts';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
    name: p.string().length(100),
    /** SHA-256 of the full key (hex); the key itself is never stored. */
    keyHash: p.string().length(64).unique(),
    /** The first characters of the key, shown in lists so people can tell keys apart. */
    keyPrefix: p.string().length(16),
    isActive: p.boolean().default(true),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type ApiKey = InferEntity<typeof ApiKey>;
