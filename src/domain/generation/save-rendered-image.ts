import type { EntityManager } from '@mikro-orm/postgresql';
import { PostVersion } from '../../data/entities/post-version.ts';
import { failureTypes } from '../../temporal/failure-types.ts';
import { loadPost } from '../posts/load-post.ts';
import { claimObjectKey } from '../storage/orphaned-objects.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { appendVersion } from '../versions/append-version.ts';
import { WorkRefused } from '../work-refused.ts';

export type SaveRenderedImageInput = { postId: string; renderId: string; imageKey: string; notes: string[] };
/** What a render answers (the `renderPost` workflow's result). */
export type RenderResult = { versionNumber: number; notes: string[] };

/** Makes the rendered image the post's image, in the caller's transaction: post, version and usage item commit together, exactly once. */
export async function saveRenderedImage(em: EntityManager, input: SaveRenderedImageInput): Promise<RenderResult> {
  const { post } = await loadPost(em, input.postId, { lock: true });
  const done = await em.findOne(PostVersion, { sourceId: input.renderId });
  if (done) return { versionNumber: done.versionNumber, notes: input.notes };

  if (!(await claimObjectKey(em, input.imageKey))) {
    throw new WorkRefused(failureTypes.renderExpired, 'The rendered image expired before it could be saved; render again.');
  }
  Object.assign(post, { imageKey: input.imageKey, status: 'draft', failureReason: null, updatedAt: new Date() });
  const version = await appendVersion(em, post, { kind: 'rendered', label: `Rendered ${post.format} post image`, sourceId: input.renderId });
  const notes = input.notes.length > 0 ? ` (${input.notes.join('; ')})` : '';
  recordUsage(em, { workspaceId: post.workspaceId, type: 'PostRender', description: `Rendered "${post.title}" at ${post.format}${notes}.`, postId: post.id });
  return { versionNumber: version.versionNumber, notes: input.notes };
}
