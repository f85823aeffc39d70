import type { BrandKit } from '../../data/entities/brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findBrandKit } from './find-brand-kit.ts';

export function getBrandKit(deps: Deps, caller: Caller, id: string): Promise<BrandKit> {
  return findBrandKit(deps.orm.em.fork(), caller.workspaceId, id);
}
