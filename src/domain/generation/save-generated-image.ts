import type { EntityManager } from '@mikro-orm/postgresql';
import { PostVersion } from '../../data/entities/post-version.ts';
import type { PostFormat } from '../../images/post-formats.ts';
import { failureTypes } from '../../temporal/failure-types.ts';
import { loadPost } from '../posts/load-post.ts';
import { claimObjectKey } from '../storage/orphaned-objects.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { appendVersion } from '../versions/append-version.ts';
import { WorkRefused } from '../work-refused.ts';
import { describeGeneration } from './describe-generation.ts';

export type SaveGeneratedImageInput = {
  postId: string;
  generationId: string;
  prompt: string;
  promptWasNew: boolean;
  format: PostFormat;
  artworkKey: string;
  madeBy: string;
  seed: number;
};
/** What a generation answers (the `generatePost` workflow's result). */
export type GenerationResult = { versionNumber: number; respond: string };

/**
 * Makes the stored artwork the post's image, in the caller's transaction: post, version and usage item commit
 * together. Exactly once: a retry after a commit whose completion never reached Temporal finds the version it made.
 */
export async function saveGeneratedImage(em: EntityManager, input: SaveGeneratedImageInput): Promise<GenerationResult> {
  const { post, brandKit } = await loadPost(em, input.postId, { lock: true });
  const respond = describeGeneration({ ...input, brandKit });
  const done = await em.findOne(PostVersion, { sourceId: input.generationId });
  if (done) {
    // A retried generation may have reserved the key again; the version uses it, so it must never be swept.
    await claimObjectKey(em, input.artworkKey);
    return { versionNumber: done.versionNumber, respond };
  }

  if (!(await claimObjectKey(em, input.artworkKey))) {
    throw new WorkRefused(failureTypes.artworkExpired, 'The generated artwork expired before it could be saved; generate again.');
  }
  Object.assign(post, {
    imageKey: input.artworkKey,
    artworkKey: input.artworkKey,
    prompt: input.prompt,
    format: input.format,
    status: 'draft',
    failureReason: null,
    updatedAt: new Date(),
  });
  const version = await appendVersion(em, post, {
    kind: 'generated',
    label: `Generated ${input.format} image (seed ${input.seed})`,
    sourceId: input.generationId,
    seed: input.seed,
  });
  recordUsage(em, {
    workspaceId: post.workspaceId,
    type: 'PostGeneration',
    description: `Generated a ${input.format} image for "${post.title}" with ${input.madeBy}.`,
    postId: post.id,
  });
  return { versionNumber: version.versionNumber, respond };
}
