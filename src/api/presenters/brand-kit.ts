import type { BrandColors, BrandFonts, BrandKit } from '../../data/entities/brand-kit.ts';
import type { Schemas } from '../schemas.ts';

const colorRoles = ['primary', 'secondary', 'accent', 'neutral'] as const;
const fontRoles = ['heading', 'body'] as const;

/** Colours and fonts are read back as JSON strings, as the spec has it, with their members in a fixed order. */
export function presentBrandKit(brandKit: BrandKit): Schemas['BrandKit'] {
  return {
    id: brandKit.id,
    name: brandKit.name,
    colorsJson: inRoleOrder(brandKit.colors, colorRoles),
    fontsJson: inRoleOrder(brandKit.fonts, fontRoles),
    logoUrl: brandKit.logoUrl ?? null,
    createdAt: brandKit.createdAt.toISOString(),
  };
}

// PostgreSQL's jsonb does not keep key order, so the spec's order is restored here.
function inRoleOrder(values: BrandColors | BrandFonts, roles: readonly string[]): string {
  const record = values as Record<string, string | undefined>;
  return JSON.stringify(Object.fromEntries(roles.filter((role) => record[role] !== undefined).map((role) => [role, record[role]])));
}
