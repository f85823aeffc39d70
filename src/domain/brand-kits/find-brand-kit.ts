import type { EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import { notFound } from '../../common/errors/app-error.ts';

export async function findBrandKit(em: EntityManager, workspaceId: string, id: string): Promise<BrandKit> {
  const brandKit = await em.findOne(BrandKit, { id, workspaceId });
  if (!brandKit) throw notFound(`Brand kit ${id}`);
  return brandKit;
}
