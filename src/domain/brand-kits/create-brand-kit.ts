import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { normalizeColors, type BrandKitInput } from './brand-kit-input.ts';

export async function createBrandKit(deps: Deps, caller: Caller, input: BrandKitInput): Promise<BrandKit> {
  return deps.orm.em.fork().transactional(async (em) => {
    await lockWorkspace(em, caller.workspaceId);
    requireQuota(caller.plan, 'brandKits', await em.count(BrandKit, { workspaceId: caller.workspaceId }));
    return em.create(BrandKit, {
      workspaceId: caller.workspaceId,
      name: input.name,
      colors: normalizeColors(input.colors),
      fonts: input.fonts ?? {},
      logoUrl: input.logoUrl ?? null,
    });
  });
}
