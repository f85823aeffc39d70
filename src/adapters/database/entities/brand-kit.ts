import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { colorRoles, fontRoles } from '../brand-roles.ts';
import { newId } from '../new-id.ts';
import { Workspace } from './workspace.ts';

export type BrandColors = Partial<Record<(typeof colorRoles)[number], string>>;
export type BrandFonts = Partial<Record<(typeof fontRoles)[number], string>>;

export const BrandKit = defineEntity({
  name: 'BrandKit',
  tableName: 'brand_kits',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
    name: p.string().length(100),
    colors: p.json<BrandColors>(),
    fonts: p.json<BrandFonts>(),
    logoUrl: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type BrandKit = InferEntity<typeof BrandKit>;
