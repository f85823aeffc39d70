import type { EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../../data/entities/brand-kit.ts';
import { notFound } from '../../errors/app-error.ts';

export async function findBrandKit(em: EntityManager, workspaceId: string, id: string): Promise<BrandKit> {
  const brandKit = await em.findOne(BrandKit, { id, workspaceId });
  if (!brandKit) throw notFound(`Brand kit ${id}`);
  return brandKit;
}
