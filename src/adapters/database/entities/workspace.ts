import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { newId } from '../new-id.ts';

export const plans = ['starter', 'growth'] as const;
export type Plan = (typeof plans)[number];

export const Workspace = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    name: p.string().length(100),
    plan: p.enum(plans),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Workspace = InferEntity<typeof Workspace>;
