import type { EntityManager } from '@mikro-orm/postgresql';
import type { Post } from '../../adapters/database/entities/post.ts';
import { notFound } from '../../common/errors/app-error.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { WorkRefused } from '../work-refused.ts';
import { listRowOf, type ListedPostColumns } from './list-posts.ts';

/** A post as stored: what a use case shows or checks. One that changes the post takes findPost's entity instead. */
export type PostRecord = Pick<
  Post,
  | 'id'
  | 'workspaceId'
  | 'projectId'
  | 'title'
  | 'prompt'
  | 'status'
  | 'format'
  | 'imageKey'
  | 'artworkKey'
  | 'hasVideo'
  | 'brandKitId'
  | 'scheduledAt'
  | 'publishedAt'
  | 'failureReason'
  | 'createdAt'
  | 'updatedAt'
>;

type Row = ListedPostColumns & {
  artwork_key: string | null;
  brand_kit_id: string | null;
  scheduled_at: string | null;
  published_at: string | null;
  failure_reason: string | null;
  updated_at: string;
};

/**
 * The caller's post, read-only, or a 404 (another workspace's post is indistinguishable from a missing one). In
 * plain SQL because reading is all it does: a managed entity costs the identity map and a change-set snapshot, several
 * times the CPU of this one statement. A generation reads its post twice, before the start and for the answer.
 */
export async function readPost(em: EntityManager, workspaceId: string, id: string): Promise<PostRecord> {
  const post = await selectPost(em, 'id = ? and workspace_id = ?', [id, workspaceId]);
  if (!post) throw notFound(`Post ${id}`);
  return post;
}

/**
 * The caller's post as readPost reads it, and whether any publication ever made it a publish target, in the same
 * statement: a reader that shows the targets too (the MCP get_post) reads them only when there are some.
 */
export async function readPostNotingTargets(em: EntityManager, workspaceId: string, id: string): Promise<{ post: PostRecord; hasTargets: boolean }> {
  const hasTargets = 'exists (select 1 from publish_targets where publish_targets.post_id = posts.id) as has_targets';
  const row = await selectRow<{ has_targets: boolean }>(em, 'id = ? and workspace_id = ?', [id, workspaceId], hasTargets);
  if (!row) throw notFound(`Post ${id}`);
  return { post: recordOf(row), hasTargets: row.has_targets };
}

/** The post a workflow works on, read-only (load-post.ts); a post deleted meanwhile ends the workflow for good. */
export function readWorkflowPost(em: EntityManager, postId: string): Promise<PostRecord> {
  return workflowPost(em, postId, { lock: false });
}

/**
 * The post that a workflow's save changes (save-generated-image.ts, save-rendered-image.ts), locked until the
 * caller's transaction ends; a post deleted meanwhile ends the workflow for good.
 */
export function lockPostRecord(em: EntityManager, postId: string): Promise<PostRecord> {
  return workflowPost(em, postId, { lock: true });
}

async function workflowPost(em: EntityManager, postId: string, { lock }: { lock: boolean }): Promise<PostRecord> {
  const post = await selectPost(em, lock ? 'id = ? for update' : 'id = ?', [postId]);
  if (!post) throw postDeletedMeanwhile(postId);
  return post;
}

/** A workflow's post is gone: the work can never succeed, so it ends for good. */
export function postDeletedMeanwhile(postId: string): WorkRefused {
  return new WorkRefused(failureTypes.postDeleted, `Post ${postId} was deleted while the work was running.`);
}

async function selectPost(em: EntityManager, condition: string, parameters: unknown[]): Promise<PostRecord | undefined> {
  const row = await selectRow(em, condition, parameters);
  return row && recordOf(row);
}

async function selectRow<Extra extends object = object>(
  em: EntityManager,
  condition: string,
  parameters: unknown[],
  extraColumn?: string,
): Promise<(Row & Extra) | undefined> {
  const [row] = await em.execute<Array<Row & Extra>>(
    `select id, workspace_id, project_id, title, prompt, status, format, image_key, artwork_key, has_video, brand_kit_id,
            scheduled_at, published_at, failure_reason, created_at, updated_at${extraColumn ? `, ${extraColumn}` : ''}
       from posts where ${condition}`,
    parameters,
  );
  return row;
}

function recordOf(row: Row): PostRecord {
  return {
    ...listRowOf(row),
    artworkKey: row.artwork_key,
    brandKitId: row.brand_kit_id,
    scheduledAt: dateOrNull(row.scheduled_at),
    publishedAt: dateOrNull(row.published_at),
    failureReason: row.failure_reason,
    updatedAt: new Date(row.updated_at),
  };
}

function dateOrNull(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}
