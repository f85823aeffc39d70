import type { EntityManager } from '@mikro-orm/postgresql';
import type { GenerationResult } from '../../../workflows/contracts/generate-post.ts';
import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import type { PostFormat } from '../../adapters/artwork/post-formats.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { lockPostRecord } from '../posts/read-post.ts';
import { setPostImage } from '../posts/set-post-image.ts';
import { claimObjectKey } from '../storage/orphaned-objects.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { appendVersion, savedVersionNumber } from '../versions/append-version.ts';
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

/**
 * Makes the stored artwork the post's image, in the caller's transaction: post, version and usage item commit
 * together. Exactly once: a retry after a commit whose completion never reached Temporal finds the version it made.
 * Every statement but the usage item's is plain SQL: through the ORM's lookups and flush this save cost about twice
 * the CPU, and each generation pays it.
 */
export async function saveGeneratedImage(em: EntityManager, input: SaveGeneratedImageInput): Promise<GenerationResult> {
  const post = await lockPostRecord(em, input.postId);
  const brandKit = post.brandKitId ? await em.findOne(BrandKit, post.brandKitId) : null;
  const respond = describeGeneration({ ...input, brandKit });
  const done = await savedVersionNumber(em, input.generationId);
  if (done !== undefined) {
    // A retried generation may have reserved the key again; the version uses it, so it must never be swept.
    await claimObjectKey(em, input.artworkKey);
    return { versionNumber: done, respond };
  }

  if (!(await claimObjectKey(em, input.artworkKey))) {
    throw new WorkRefused(failureTypes.artworkExpired, 'The generated artwork expired before it could be saved; generate again.');
  }
  const image = { imageKey: input.artworkKey, artworkKey: input.artworkKey, prompt: input.prompt, format: input.format };
  await setPostImage(em, post.id, image);
  const versionNumber = await appendVersion(em, {
    postId: post.id,
    kind: 'generated',
    label: `Generated ${input.format} image (seed ${input.seed})`,
    sourceId: input.generationId,
    seed: input.seed,
    ...image,
  });
  recordUsage(em, {
    workspaceId: post.workspaceId,
    type: 'PostGeneration',
    description: `Generated a ${input.format} image for "${post.title}" with ${input.madeBy}.`,
    postId: post.id,
  });
  return { versionNumber, respond };
}
