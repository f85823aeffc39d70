import { ApplicationFailure } from '@temporalio/activity';
import { PostVersion } from '../src/data/entities/post-version.ts';
import { claimObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { recordUsage } from '../src/domain/usage/record-usage.ts';
import { appendVersion } from '../src/domain/versions/append-version.ts';
import type { ActivityDeps } from './index.ts';
import { loadPost } from './load-post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

export type SaveRenderedImageInput = { postId: string; renderId: string; imageKey: string; notes: string[] };
export type RenderResult = { versionNumber: number; notes: string[] };

/** Makes the rendered image the post's image; post, version and usage item commit together, exactly once. */
export async function saveRenderedImage(deps: ActivityDeps, input: SaveRenderedImageInput): Promise<RenderResult> {
  return deps.orm.em.fork().transactional(async (em) => {
    const { post } = await loadPost(em, input.postId, { lock: true });
    const done = await em.findOne(PostVersion, { sourceId: input.renderId });
    if (done) return { versionNumber: done.versionNumber, notes: input.notes };

    if (!(await claimObjectKey(em, input.imageKey))) {
      throw ApplicationFailure.nonRetryable('The rendered image expired before it could be saved; render again.', failureTypes.renderExpired);
    }
    Object.assign(post, { imageKey: input.imageKey, status: 'draft', failureReason: null, updatedAt: new Date() });
    const version = await appendVersion(em, post, { kind: 'rendered', label: `Rendered ${post.format} post image`, sourceId: input.renderId });
    const notes = input.notes.length > 0 ? ` (${input.notes.join('; ')})` : '';
    recordUsage(em, { workspaceId: post.workspaceId, type: 'PostRender', description: `Rendered "${post.title}" at ${post.format}${notes}.`, postId: post.id });
    return { versionNumber: version.versionNumber, notes: input.notes };
  });
}
