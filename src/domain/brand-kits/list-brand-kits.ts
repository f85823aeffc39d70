import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';

export async function listBrandKits(deps: Deps, caller: Caller, query: PageRequest): Promise<Page<BrandKit>> {
  const rows = await deps.orm.em
    .fork()
    .find(BrandKit, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
