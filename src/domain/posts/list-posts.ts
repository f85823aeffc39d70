import type { Post, PostStatus } from '../../adapters/database/entities/post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import type { Page, PageRequest } from '../paging.ts';
import { findProject } from '../find-in-workspace.ts';
import { decodeCursor, encodeCursor } from './post-cursor.ts';

export type PostListQuery = PageRequest & { status?: PostStatus | undefined; cursor?: string | undefined };
/** What a list shows of a post. */
export type PostListRow = Pick<Post, 'id' | 'workspaceId' | 'projectId' | 'title' | 'prompt' | 'status' | 'imageKey' | 'hasVideo' | 'format' | 'createdAt'>;
export type PostPage = Page<PostListRow> & { nextCursor?: string | undefined };

/** A list row as PostgreSQL answers it (read-post.ts reads the rest of the columns on top). */
export type ListedPostColumns = {
  id: string;
  workspace_id: string;
  project_id: string;
  title: string;
  prompt: string;
  status: PostStatus;
  image_key: string | null;
  has_video: boolean;
  format: Post['format'];
  created_at: string | Date;
};

export function listPosts(deps: Deps, caller: Caller, query: PostListQuery): Promise<PostPage> {
  return listPage(deps, { workspaceId: caller.workspaceId, status: query.status }, query);
}

export async function listProjectPosts(deps: Deps, caller: Caller, projectId: string, query: PostListQuery): Promise<PostPage> {
  await findProject(deps.orm.em.fork(), caller.workspaceId, projectId);
  return listPage(deps, { workspaceId: caller.workspaceId, projectId, status: query.status }, query);
}

type Scope = { workspaceId: string; projectId?: string; status?: PostStatus | undefined };

/**
 * Newest first in a stable order (createdAt, then id), in one statement of two steps: pick the page's ids from the
 * index alone, then load those rows. Skipping rows by page number thus reads index entries only; a cursor (what the
 * `Link: next` header carries) seeks straight to its place with a row comparison the index serves, so depth costs
 * nothing.
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
  // One row more than the page, to learn whether another page follows. Read-only rows for the presenter, in plain
  // SQL: managed entities would cost the identity map and change-set snapshots, and even the query builder spent
  // longer building and mapping the rows' statement than the database took to answer it.
  const rows = await deps.orm.em.execute<ListedPostColumns[]>(
    `select id, workspace_id, project_id, title, prompt, status, image_key, has_video, format, created_at
       from (select id from posts where ${conditions.join(' and ')} order by created_at desc, id desc limit ? offset ?) as page
       join posts using (id)
      order by created_at desc, id desc`,
    [...parameters, query.pageSize + 1, offset],
  );
  const hasMore = rows.length > query.pageSize;
  const items = rows.slice(0, query.pageSize).map(listRowOf);
  const last = items.at(-1);
  return { items, page: query.page, pageSize: query.pageSize, hasMore, nextCursor: hasMore && last ? encodeCursor(last) : undefined };
}

export function listRowOf(row: ListedPostColumns): PostListRow {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    title: row.title,
    prompt: row.prompt,
    status: row.status,
    imageKey: row.image_key,
    hasVideo: row.has_video,
    format: row.format,
    createdAt: new Date(row.created_at),
  };
}
