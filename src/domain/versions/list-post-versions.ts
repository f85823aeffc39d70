import { PostVersion } from '../../adapters/database/entities/post-version.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';
import { readPost } from '../posts/read-post.ts';

export async function listPostVersions(deps: Deps, caller: Caller, postId: string, query: PageRequest): Promise<Page<PostVersion>> {
  const em = deps.orm.em.fork();
  await readPost(em, caller.workspaceId, postId);
  const rows = await em.find(PostVersion, { postId }, { orderBy: { versionNumber: 'desc' }, ...pageQuery(query) });
  return toPage(rows, query);
}
