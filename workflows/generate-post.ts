import { ApplicationFailure, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { GenerationResult } from '../src/domain/generation/save-generated-image.ts';
import type { PostFormat } from '../src/images/post-formats.ts';
import { databaseWork, imageGeneration, localDatabaseWork, localImageGeneration } from './activity-options.ts';
import { failureReasonFor } from './failure-reason.ts';
import { handOver } from './hand-over-event.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

// The provider call, bounded because a customer's generate waits for it (see imageGeneration).
const { generatePostImage } = proxyActivities<Activities>(imageGeneration);

// A provider that runs locally draws inside the workflow's first task (see localImageGeneration).
const localImage = proxyLocalActivities<Activities>(localImageGeneration);

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { saveGeneratedImage, markPostFailed } = proxyActivities<Activities>(databaseWork);
// Saving after the image activity, as a local activity. The image activity saves the generation itself; this is
// the path when its save failed (and of runs that began before it saved, whose activity did not).
const local = proxyLocalActivities<Activities>(localDatabaseWork);

// Runs that began before saving was a local activity scheduled it as an activity: replaying such a run must
// schedule the same command, so the runs without this marker keep doing that. Once no such run is left,
// deprecatePatch() it.
export const localGenerationSavePatch = 'generation-local-save';

// Runs that began before the image of a local provider was a local activity scheduled an activity for it, and so
// did runs that an older worker began after this change was deployed: the runs without this marker keep doing that.
// Once no such run is left, deprecatePatch() it.
export const localImagePatch = 'generation-local-image';

export type GeneratePostInput = {
  postId: string;
  generationId: string;
  prompt: string;
  promptWasNew: boolean;
  format: PostFormat;
  seed: number;
  /** The provider of whoever started the run is the local renderer (see requestGeneration); absent in runs that began before. */
  imageRunsLocally?: boolean;
};

/**
 * Generates a post's artwork and makes it the post's image and newest version. When generation fails for good,
 * the post is marked `failed` with the reason, the `post.failed` event goes to webhooks, and the workflow fails.
 */
export async function generatePost(input: GeneratePostInput): Promise<GenerationResult> {
  const generateImage = input.imageRunsLocally && patched(localImagePatch) ? localImage.generatePostImage : generatePostImage;
  let artwork;
  try {
    artwork = await generateImage({
      postId: input.postId,
      generationId: input.generationId,
      prompt: input.prompt,
      format: input.format,
      seed: input.seed,
      saveToPost: { promptWasNew: input.promptWasNew },
    });
  } catch (error) {
    // The provider's refusal in its words; anything else in a sentence of ours, what it said going to the log.
    const reason = failureReasonFor(error, 'Generation');
    const { eventId } = await markPostFailed({ postId: input.postId, reason, sourceId: `generation-${input.generationId}` });
    if (eventId) await handOver(eventId);
    // The client reads the reason; the Temporal UI shows the failure itself below it.
    throw ApplicationFailure.create({ message: reason, type: failureTypes.generationFailed, nonRetryable: true, cause: error as Error });
  }
  // Saved by the activity: no command follows, so runs whose activity did not save replay the same way below.
  if (artwork.saved) return artwork.saved;
  const save = patched(localGenerationSavePatch) ? local.saveGeneratedImage : saveGeneratedImage;
  return save({ ...input, artworkKey: artwork.artworkKey, madeBy: artwork.madeBy, seed: artwork.seed });
}
