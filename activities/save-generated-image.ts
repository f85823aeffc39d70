import { ApplicationFailure } from '@temporalio/activity';
import { PostVersion } from '../src/data/entities/post-version.ts';
import { claimObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { recordUsage } from '../src/domain/usage/record-usage.ts';
import { appendVersion } from '../src/domain/versions/append-version.ts';
import type { PostFormat } from '../src/images/post-formats.ts';
import { describeGeneration } from './generation-text.ts';
import type { ActivityDeps } from './index.ts';
import { loadPost } from './load-post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

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
export type GenerationResult = { versionNumber: number; respond: string };

/**
 * Makes the stored artwork the post's image, in one transaction: post, version and usage item commit together.
 * Exactly once: a retry after a commit whose completion never reached Temporal finds the version it made.
 */
export async function saveGeneratedImage(deps: ActivityDeps, input: SaveGeneratedImageInput): Promise<GenerationResult> {
  return deps.orm.em.fork().transactional(async (em) => {
    const { post, brandKit } = await loadPost(em, input.postId, { lock: true });
    const respond = describeGeneration({ ...input, brandKit });
    const done = await em.findOne(PostVersion, { sourceId: input.generationId });
    if (done) return { versionNumber: done.versionNumber, respond };

    if (!(await claimObjectKey(em, input.artworkKey))) {
      throw ApplicationFailure.nonRetryable('The generated artwork expired before it could be saved; generate again.', failureTypes.artworkExpired);
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
  });
}
