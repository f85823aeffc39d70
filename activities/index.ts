import type { Deps } from '../src/domain/deps.ts';
import { attemptWebhookDelivery, type AttemptWebhookDeliveryInput } from './attempt-webhook-delivery.ts';
import { cancelPublication } from './cancel-publication.ts';
import { createScheduledPost } from './create-scheduled-post.ts';
import { finalUnlessDependencyDown } from './database-work.ts';
import { deleteOrphanedObjects, type DeleteOrphansInput } from './delete-orphaned-objects.ts';
import { deliverToWebhooks, type DeliverToWebhooksInput } from './deliver-to-webhooks.ts';
import { dispatchEvent } from './dispatch-event.ts';
import { generatePostImage, type GeneratePostImageInput } from './generate-post-image.ts';
import { markPostFailed, type MarkPostFailedInput } from './mark-post-failed.ts';
import { markTargetFailed } from './mark-target-failed.ts';
import { planPublication, type PlanPublicationInput } from './plan-publication.ts';
import { publishToTarget } from './publish-to-target.ts';
import { recordScheduleRun } from './record-schedule-run.ts';
import { recordVideoJobEnd, type RecordVideoJobEndInput } from './record-video-job-end.ts';
import { renderPostImage, type RenderPostImageInput } from './render-post-image.ts';
import { renderPostVideo, type RenderPostVideoInput } from './render-post-video.ts';
import { saveGeneratedImage, type SaveGeneratedImageInput } from './save-generated-image.ts';
import { savePostVideo, type SavePostVideoInput } from './save-post-video.ts';
import { saveRenderedImage, type SaveRenderedImageInput } from './save-rendered-image.ts';
import { settlePublication, type SettlePublicationInput } from './settle-publication.ts';
import { startEventDelivery } from './start-event-delivery.ts';

/** The activities' deps are the process's deps (src/services.ts), the same that use cases take. */
export type ActivityDeps = Deps;

/**
 * The worker injects real clients; tests inject what they need (e.g. a storage that fails on purpose). Activities
 * that only work on our own database pass through `finalUnlessDependencyDown`, which decides what their unbounded retry may
 * retry; the others map their failures themselves and have bounded retries.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    deleteOrphanedObjects: (input: DeleteOrphansInput) => deleteOrphanedObjects(deps, input),
    generatePostImage: (input: GeneratePostImageInput) => generatePostImage(deps, input),
    saveGeneratedImage: (input: SaveGeneratedImageInput) => finalUnlessDependencyDown(() => saveGeneratedImage(deps, input)),
    markPostFailed: (input: MarkPostFailedInput) => finalUnlessDependencyDown(() => markPostFailed(deps, input)),
    renderPostImage: (input: RenderPostImageInput) => renderPostImage(deps, input),
    saveRenderedImage: (input: SaveRenderedImageInput) => finalUnlessDependencyDown(() => saveRenderedImage(deps, input)),
    renderPostVideo: (input: RenderPostVideoInput) => renderPostVideo(deps, input),
    savePostVideo: (input: SavePostVideoInput) => finalUnlessDependencyDown(() => savePostVideo(deps, input)),
    recordVideoJobEnd: (input: RecordVideoJobEndInput) => finalUnlessDependencyDown(() => recordVideoJobEnd(deps, input)),
    planPublication: (input: PlanPublicationInput) => finalUnlessDependencyDown(() => planPublication(deps, input)),
    cancelPublication: (input: { postId: string; publicationId: string }) => finalUnlessDependencyDown(() => cancelPublication(deps, input)),
    publishToTarget: (input: { targetId: string; publishedAt: string }) => publishToTarget(deps, input),
    markTargetFailed: (input: { targetId: string; reason: string }) => finalUnlessDependencyDown(() => markTargetFailed(deps, input)),
    settlePublication: (input: SettlePublicationInput) => finalUnlessDependencyDown(() => settlePublication(deps, input)),
    startEventDelivery: (input: { eventId: string }) => finalUnlessDependencyDown(() => startEventDelivery(deps, input)),
    dispatchEvent: (input: { eventId: string }) => finalUnlessDependencyDown(() => dispatchEvent(deps, input)),
    createScheduledPost: (input: { scheduleId: string; postId: string; runAt: string }) => finalUnlessDependencyDown(() => createScheduledPost(deps, input)),
    recordScheduleRun: (input: { scheduleId: string; error: string | null }) => finalUnlessDependencyDown(() => recordScheduleRun(deps, input)),
    deliverToWebhooks: (input: DeliverToWebhooksInput) => finalUnlessDependencyDown(() => deliverToWebhooks(deps, input)),
    attemptWebhookDelivery: (input: AttemptWebhookDeliveryInput) => attemptWebhookDelivery(deps, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
