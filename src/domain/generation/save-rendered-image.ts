import type { EntityManager } from '@mikro-orm/postgresql';
import type { RenderResult } from '../../../workflows/contracts/render-post.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { lockPostRecord } from '../posts/read-post.ts';
import { setPostImage } from '../posts/set-post-image.ts';
import { claimObjectKey } from '../storage/orphaned-objects.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { appendVersion, savedVersionNumber } from '../versions/append-version.ts';
import { WorkRefused } from '../work-refused.ts';

export type SaveRenderedImageInput = { postId: string; renderId: string; imageKey: string; notes: string[] };

/**
 * Makes the rendered image the post's image, in the caller's transaction: post, version and usage item commit
 * together, exactly once. Plain SQL as in saveGeneratedImage, its twin.
 */
export async function saveRenderedImage(em: EntityManager, input: SaveRenderedImageInput): Promise<RenderResult> {
  const post = await lockPostRecord(em, input.postId);
  const done = await savedVersionNumber(em, input.renderId);
  if (done !== undefined) return { versionNumber: done, notes: input.notes };

  if (!(await claimObjectKey(em, input.imageKey))) {
    throw new WorkRefused(failureTypes.renderExpired, 'The rendered image expired before it could be saved; render again.');
  }
  await setPostImage(em, post.id, { imageKey: input.imageKey });
  const versionNumber = await appendVersion(em, {
    postId: post.id,
    kind: 'rendered',
    label: `Rendered ${post.format} post image`,
    sourceId: input.renderId,
    imageKey: input.imageKey,
    artworkKey: post.artworkKey ?? null,
    prompt: post.prompt,
    format: post.format,
  });
  const notes = input.notes.length > 0 ? ` (${input.notes.join('; ')})` : '';
  recordUsage(em, { workspaceId: post.workspaceId, type: 'PostRender', description: `Rendered "${post.title}" at ${post.format}${notes}.`, postId: post.id });
  return { versionNumber, notes: input.notes };
}
