import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { colorRoles, fontRoles } from '../brand-roles.ts';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

export type BrandColors = Partial<Record<(typeof colorRoles)[number], string>>;
export type BrandFonts = Partial<Record<(typeof fontRoles)[number], string>>;

export const BrandKit = defineEntity({
  name: 'BrandKit',
  tableName: 'brand_kits',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    name: p.string().length(100),
    colors: p.json<BrandColors>(),
    fonts: p.json<BrandFonts>(),
    logoUrl: p.text().nullable(),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type BrandKit = InferEntity<typeof BrandKit>;
