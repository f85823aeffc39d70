import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { createOnce } from '../idempotency/request-effects.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { normalizeColors, type BrandKitInput } from './brand-kit-input.ts';

/** `requestKey` names the request's Idempotency-Key (requestFingerprint): a retry gets the kit the first send created. */
export async function createBrandKit(deps: Deps, caller: Caller, input: BrandKitInput, requestKey?: string): Promise<BrandKit> {
  return deps.orm.em.fork().transactional(async (em) => {
    await lockWorkspace(em, caller.workspaceId);
    const find = (id: string) => em.findOne(BrandKit, { id, workspaceId: caller.workspaceId });
    return createOnce(em, caller.workspaceId, requestKey, { type: 'brand-kit', find }, async () => {
      requireQuota(caller.plan, 'brandKits', await em.count(BrandKit, { workspaceId: caller.workspaceId }));
      return em.create(BrandKit, {
        workspaceId: caller.workspaceId,
        name: input.name,
        colors: normalizeColors(input.colors),
        fonts: input.fonts ?? {},
        logoUrl: input.logoUrl ?? null,
      });
    });
  });
}
