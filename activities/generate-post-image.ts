import { Context } from '@temporalio/activity';
import type { PostFormat } from '../src/images/post-formats.ts';
import { loadPost } from '../src/domain/posts/load-post.ts';
import { reserveObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { countOutcome } from '../src/metrics/remote-call-outcome.ts';
import { postGenerations } from '../src/metrics/worker-metrics.ts';
import { objectKeys } from '../src/storage/object-keys.ts';
import type { ActivityDeps } from './index.ts';

export type GeneratePostImageInput = { postId: string; generationId: string; prompt: string; format: PostFormat; seed: number };
export type GeneratedArtwork = { artworkKey: string; madeBy: string; seed: number; width: number; height: number };

// A generation that never saves (the post was deleted, the workflow failed for good) leaves its artwork to the sweep.
const artworkGraceMs = 24 * 60 * 60 * 1000;

/**
 * Asks the image provider for the artwork and stores it. The key depends only on the generation, so a retry
 * overwrites the same object. Provider errors become Temporal failures: refusals are final, rate limits wait as
 * long as the provider asked, outages follow the activity's retry ladder (activities/temporal-failure.ts).
 */
export async function generatePostImage(deps: ActivityDeps, input: GeneratePostImageInput): Promise<GeneratedArtwork> {
  const em = deps.orm.em.fork();
  const { post, brandKit } = await loadPost(em, input.postId);
  const artworkKey = objectKeys.postArtwork(post.workspaceId, post.id, input.generationId);
  const heartbeat = () => Context.current().heartbeat();
  // The key is reserved while the image is made (a database round trip off the customer's wait); both are done
  // before any byte is stored, which is what the reservation must precede.
  const [image] = await Promise.all([
    countOutcome(
      deps.images.generate({ prompt: input.prompt, format: input.format, seed: input.seed, colors: brandKit?.colors ?? {}, onProgress: heartbeat }),
      (outcome) => postGenerations.inc({ provider: deps.images.name, outcome }),
    ),
    reserveObjectKey(em, { key: artworkKey, reason: 'generated artwork never saved', graceMs: artworkGraceMs }),
  ]);
  await deps.storage.put(artworkKey, image.png, 'image/png');
  return { artworkKey, madeBy: image.madeBy, seed: image.seed, width: image.width, height: image.height };
}
