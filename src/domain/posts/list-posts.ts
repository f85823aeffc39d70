import { Post, type PostStatus } from '../../data/entities/post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import type { Page, PageRequest } from '../paging.ts';
import { findProject } from '../projects/find-project.ts';
import { decodeCursor, encodeCursor } from './post-cursor.ts';

export type PostListQuery = PageRequest & { status?: PostStatus | undefined; cursor?: string | undefined };
export type PostPage = Page<Post> & { nextCursor?: string | undefined };

export function listPosts(deps: Deps, caller: Caller, query: PostListQuery): Promise<PostPage> {
  return listPage(deps, { workspaceId: caller.workspaceId, status: query.status }, query);
}

export async function listProjectPosts(deps: Deps, caller: Caller, projectId: string, query: PostListQuery): Promise<PostPage> {
  await findProject(deps.orm.em.fork(), caller.workspaceId, projectId);
  return listPage(deps, { workspaceId: caller.workspaceId, projectId, status: query.status }, query);
}

type Scope = { workspaceId: string; projectId?: string; status?: PostStatus | undefined };

/**
 * Newest first in a stable order (createdAt, then id), in two steps: pick the page's ids from the index alone, then
 * load those rows. Skipping rows by page number thus reads index entries only; a cursor (what the `Link: next`
 * header carries) seeks straight to its place with a row comparison the index serves, so depth costs nothing.
 */
async function listPage(deps: Deps, scope: Scope, query: PostListQuery): Promise<PostPage> {
  const conditions = ['workspace_id = ?'];
  const parameters: unknown[] = [scope.workspaceId];
  if (scope.projectId) {
    conditions.push('project_id = ?');
    parameters.push(scope.projectId);
  }
  if (scope.status) {
    conditions.push('status = ?');
    parameters.push(scope.status);
  }
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  if (after) {
    conditions.push('(created_at, id) < (?::timestamptz, ?::uuid)');
    parameters.push(after.createdAt.toISOString(), after.id);
  }
  const offset = after ? 0 : (query.page - 1) * query.pageSize;
  const rows = await deps.orm.em.execute<Array<{ id: string }>>(
    `select id from posts where ${conditions.join(' and ')} order by created_at desc, id desc limit ? offset ?`,
    [...parameters, query.pageSize + 1, offset],
  );
  const hasMore = rows.length > query.pageSize;
  const ids = rows.slice(0, query.pageSize).map((row) => row.id);
  // Read-only rows for the presenter: as plain objects they skip the entity manager's bookkeeping (identity map,
  // change-set snapshots), which cost a list more than the two queries themselves.
  const items: Post[] =
    ids.length > 0
      ? await deps.orm.em.createQueryBuilder(Post).select('*').where({ id: { $in: ids } }).orderBy({ createdAt: 'desc', id: 'desc' }).execute('all')
      : [];
  const last = items.at(-1);
  return { items, page: query.page, pageSize: query.pageSize, hasMore, nextCursor: hasMore && last ? encodeCursor(last) : undefined };
}
