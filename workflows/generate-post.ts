import { ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { databaseWork, imageGeneration, localDatabaseWork, localImageGeneration } from './contracts/activity-options.ts';
import { failureReasonFor } from './failure-reason.ts';
import type { GeneratePostInput, GenerationResult } from './contracts/generate-post.ts';
import { handOver } from './hand-over-event.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';

// The provider call, bounded because a customer's generate waits for it (see imageGeneration).
const { generatePostImage } = proxyActivities<Activities>(imageGeneration);

// A provider that runs locally draws inside the workflow's first task (see localImageGeneration).
const localImage = proxyLocalActivities<Activities>(localImageGeneration);

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { markPostFailed } = proxyActivities<Activities>(databaseWork);
// Saving after the image activity, as a local activity. The image activity saves the generation itself; this is
// the path when its save failed.
const { saveGeneratedImage } = proxyLocalActivities<Activities>(localDatabaseWork);

/**
 * Generates a post's artwork and makes it the post's image and newest version. When generation fails for good,
 * the post is marked `failed` with the reason, the `post.failed` event goes to webhooks, and the workflow fails.
 */
export async function generatePost(input: GeneratePostInput): Promise<GenerationResult> {
  const generateImage = input.imageRunsLocally ? localImage.generatePostImage : generatePostImage;
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
  if (artwork.saved) return artwork.saved;
  return saveGeneratedImage({ ...input, artworkKey: artwork.artworkKey, madeBy: artwork.madeBy, seed: artwork.seed });
}
