import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { withTimeout } from '../src/common/async/with-timeout.ts';
import { heartbeatingOnAClock } from './heartbeat-on-a-clock.ts';
import { saveGeneratedImage, type SaveGeneratedImageInput } from '../src/domain/generation/save-generated-image.ts';
import { generateKeepingKeyStanding } from '../src/domain/generation/image-key-standing.ts';
import type { GenerationResult } from '../workflows/contracts/generate-post.ts';
import { loadPost } from '../src/domain/posts/load-post.ts';
import { PostVersion } from '../src/adapters/database/entities/post-version.ts';
import { postFormats, type PostFormat } from '../src/adapters/artwork/post-formats.ts';
import { reserveObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { countOutcome } from '../src/adapters/metrics/remote-call-outcome.ts';
import { postGenerations } from '../src/adapters/metrics/worker-metrics.ts';
import { objectKeys } from '../src/adapters/object-storage/object-keys.ts';
import type { Deps } from '../src/domain/deps.ts';
import type { BrandColors } from '../src/adapters/database/entities/brand-kit.ts';
import { messageOf } from '../src/common/errors/caught.ts';

export type GeneratePostImageInput = {
  postId: string;
  generationId: string;
  prompt: string;
  format: PostFormat;
  seed: number;
  /** Saves the artwork as the post's image and newest version once it is stored. */
  saveToPost: { promptWasNew: boolean };
};
export type GeneratedArtwork = {
  artworkKey: string;
  madeBy: string;
  seed: number;
  width: number;
  height: number;
  /** The generation's result when this activity saved it; absent when its save failed. */
  saved?: GenerationResult;
};

// A save here that has not answered by then is left to the workflow, which saves on its own path: the customer's
// answer should not wait on a save stuck on a lock.
const saveWaitMs = 5_000;

// A generation that never saves (the post was deleted, the workflow failed for good) leaves its artwork to the sweep.
const artworkGraceMs = 24 * 60 * 60 * 1000;

/**
 * Asks the image provider for the artwork, stores it and, when asked, saves it to the post. The key depends only on
 * the generation, so a retry overwrites the same object. Provider errors become Temporal failures: refusals are
 * final, rate limits wait as long as the provider asked, outages follow the activity's retry ladder
 * (activities/temporal-failure.ts); a refused key is also logged and recorded for /ready (image-key-standing.ts).
 */
export function generatePostImage(deps: Deps, input: GeneratePostImageInput): Promise<GeneratedArtwork> {
  // The provider call (up to minutes), the store and the save are each bounded, but not by the heartbeat timeout.
  return heartbeatingOnAClock(() => generate(deps, input));
}

async function generate(deps: Deps, input: GeneratePostImageInput): Promise<GeneratedArtwork> {
  const em = deps.orm.em.fork();
  const { post, brandKit } = await loadPost(em, input.postId);
  const artworkKey = objectKeys.postArtwork(post.workspaceId, post.id, input.generationId);
  const artwork = (await artworkSavedEarlier(deps, em, input, artworkKey)) ?? (await newArtwork(deps, em, input, artworkKey, brandKit?.colors ?? {}));
  const { promptWasNew } = input.saveToPost;
  const saved = await trySaving(deps, {
    postId: post.id,
    generationId: input.generationId,
    prompt: input.prompt,
    promptWasNew,
    format: input.format,
    artworkKey,
    madeBy: artwork.madeBy,
    seed: artwork.seed,
  });
  return saved ? { ...artwork, saved } : artwork;
}

/**
 * An earlier attempt may have saved the generation and then lost its answer (its worker died, or it timed out), or an
 * earlier run of the same generation did (its request was retried with its Idempotency-Key after its api died, and
 * runs it again under the same id). The generation is done: asking the provider again would pay for an image nobody
 * uses and overwrite the post's. The save that follows finds its version and answers with it. The image's own
 * `madeBy` (with its details, e.g. Stability's engine) is not kept, so the answer names the provider. Asked on every
 * attempt, since a first attempt can be a second run: one look-up by a unique index.
 */
async function artworkSavedEarlier(deps: Deps, em: EntityManager, input: GeneratePostImageInput, artworkKey: string): Promise<GeneratedArtwork | undefined> {
  const version = await em.findOne(PostVersion, { sourceId: input.generationId });
  if (!version) return undefined;
  const { width, height } = postFormats[input.format];
  return { artworkKey, madeBy: deps.images.title, seed: version.seed ?? input.seed, width, height };
}

async function newArtwork(deps: Deps, em: EntityManager, input: GeneratePostImageInput, artworkKey: string, colors: BrandColors): Promise<GeneratedArtwork> {
  // The key is reserved while the image is made (a database round trip off the customer's wait); both are done
  // before any byte is stored, which is what the reservation must precede.
  const [image] = await Promise.all([
    countOutcome(generateKeepingKeyStanding(deps, { prompt: input.prompt, format: input.format, seed: input.seed, colors }), (outcome) =>
      postGenerations.inc({ provider: deps.images.name, outcome }),
    ),
    reserveObjectKey(em, { key: artworkKey, reason: 'generated artwork never saved', graceMs: artworkGraceMs }),
  ]);
  await deps.storage.put(artworkKey, image.png, 'image/png');
  return { artworkKey, madeBy: image.madeBy, seed: image.seed, width: image.width, height: image.height };
}

/**
 * Saving here spares the generation a local activity, and the workflow task that runs it, between the image and the
 * customer's answer. But a failed save must not fail this activity: its retry would ask the (paid) provider again.
 * So any failure is left to the workflow, which saves on its own path: outages retried without limit, anything else
 * final with its reason, as before. The save is idempotent (save-generated-image.ts), so one that committed here
 * late, or failed on the way back, is found there.
 */
async function trySaving(deps: Deps, input: SaveGeneratedImageInput): Promise<GenerationResult | undefined> {
  try {
    return await withTimeout(
      deps.orm.em.fork().transactional((em) => saveGeneratedImage(em, input)),
      saveWaitMs,
    );
  } catch (error) {
    Context.current().log.warn('Saving the generated image failed; the workflow saves it again', { error: messageOf(error) });
    return undefined;
  }
}
