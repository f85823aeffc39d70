import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';

export async function listSocialConnections(deps: Deps, caller: Caller, query: PageRequest): Promise<Page<SocialConnection>> {
  const rows = await deps.orm.em
    .fork()
    .find(SocialConnection, { workspaceId: caller.workspaceId }, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
