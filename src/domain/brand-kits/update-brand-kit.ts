import type { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { normalizeColors, type BrandKitInput } from './brand-kit-input.ts';
import { findBrandKit } from '../find-in-workspace.ts';

/** `colors` and `fonts`, when given, replace the stored objects as a whole. */
export async function updateBrandKit(deps: Deps, caller: Caller, id: string, input: Partial<BrandKitInput>): Promise<BrandKit> {
  return deps.orm.em.fork().transactional(async (em) => {
    const brandKit = await findBrandKit(em, caller.workspaceId, id);
    if (input.name !== undefined) brandKit.name = input.name;
    if (input.colors !== undefined) brandKit.colors = normalizeColors(input.colors);
    if (input.fonts !== undefined) brandKit.fonts = input.fonts;
    if (input.logoUrl !== undefined) brandKit.logoUrl = input.logoUrl;
    return brandKit;
  });
}
