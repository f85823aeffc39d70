import type { BrandColors, BrandFonts } from '../../adapters/database/entities/brand-kit.ts';

export type BrandKitInput = {
  name: string;
  colors?: BrandColors;
  fonts?: BrandFonts;
  logoUrl?: string | null;
};

/** Hex colours are stored lower-case so that equal colours compare equal. */
export function normalizeColors(colors: BrandColors = {}): BrandColors {
  return Object.fromEntries(Object.entries(colors).map(([role, hex]) => [role, hex.toLowerCase()]));
}
