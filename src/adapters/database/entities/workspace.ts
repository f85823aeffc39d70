import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';

export const plans = ['starter', 'growth'] as const;
export type Plan = (typeof plans)[number];

export const Workspace = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    ...primaryKey,
    name: p.string().length(100),
    plan: p.enum(plans),
    /** Where OAuth connections may send the person back to (`redirectUri` of an authorization), exact URLs. */
    oauthRedirectUris: p
      .json<string[]>()
      .onCreate(() => [])
      .defaultRaw(`'[]'`),
    ...createdAndUpdatedAt,
  },
});
export type Workspace = InferEntity<typeof Workspace>;

/** The workspace a row belongs to (`workspace_id`), whose deletion deletes the row. */
export const belongsToWorkspace = {
  workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
};
