import { colorRoles, fontRoles, inRoleOrder } from '../../adapters/database/brand-roles.ts';
import type { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { Schemas } from '../schemas.ts';

/** Colours and fonts are read back as JSON strings, as the spec has it, with their members in role order. */
export function presentBrandKit(brandKit: BrandKit): Schemas['BrandKit'] {
  return {
    id: brandKit.id,
    name: brandKit.name,
    colorsJson: JSON.stringify(Object.fromEntries(inRoleOrder(brandKit.colors, colorRoles))),
    fontsJson: JSON.stringify(Object.fromEntries(inRoleOrder(brandKit.fonts, fontRoles))),
    logoUrl: brandKit.logoUrl ?? null,
    createdAt: brandKit.createdAt.toISOString(),
  };
}
