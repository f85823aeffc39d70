import type { Deps } from '../src/domain/deps.ts';
import { saveGeneratedImage, type SaveGeneratedImageInput } from '../src/domain/generation/save-generated-image.ts';
import { saveRenderedImage, type SaveRenderedImageInput } from '../src/domain/generation/save-rendered-image.ts';
import { handOverEvent } from '../src/domain/events/hand-over-event.ts';
import { markPostFailed, type MarkPostFailedInput } from '../src/domain/posts/mark-post-failed.ts';
import { markTargetFailed } from '../src/domain/publishing/mark-target-failed.ts';
import { recordPublicationCancelled, type PublicationRef } from '../src/domain/publishing/record-publication-cancelled.ts';
import { recordPublicationPlan, type PublicationPlanInput } from '../src/domain/publishing/record-publication-plan.ts';
import { settlePublication, type SettlePublicationInput } from '../src/domain/publishing/settle-publication.ts';
import { createScheduledPost, type ScheduledRun } from '../src/domain/schedules/create-scheduled-post.ts';
import type { DeleteOrphansInput } from '../src/domain/storage/purge-orphaned-objects.ts';
import { recordVideoJobEnd, type VideoJobEnd } from '../src/domain/video/record-video-job-end.ts';
import { savePostVideo, type SavePostVideoInput } from '../src/domain/video/save-post-video.ts';
import type { RedeliverWebhookInput } from '../workflows/contracts/redeliver-webhook.ts';
import { scheduleIdsOf } from '../src/domain/schedules/list-schedule-ids.ts';
import { applyPlanToSchedule } from '../src/domain/workspaces/apply-plan-to-schedule.ts';
import { attemptWebhookDelivery } from './attempt-webhook-delivery.ts';
import { finalUnlessDependencyDown, inOneStatement, inTransaction } from './database-work.ts';
import { deleteOrphanedObjects } from './delete-orphaned-objects.ts';
import { deliverToWebhooks, type DeliverToWebhooksInput } from './deliver-to-webhooks.ts';
import { handOverForgottenEvents } from './hand-over-forgotten-events.ts';
import { generatePostImage, type GeneratePostImageInput } from './generate-post-image.ts';
import { publishToTarget, type PublishToTargetInput } from './publish-to-target.ts';
import { refreshSocialConnection } from './refresh-social-connection.ts';
import { recordScheduleRunAtItsFiring } from './record-schedule-run.ts';
import { renderPostImage, type RenderPostImageInput } from './render-post-image.ts';
import { renderPostVideo, type RenderPostVideoInput } from './render-post-video.ts';
import { repairScheduleDrift } from './repair-schedule-drift.ts';
import { stopWorkspaceDeliveries } from './stop-workspace-deliveries.ts';
import { failingAsTemporal } from './temporal-failure.ts';
import type { Activities } from './activity-signatures.ts';

/**
 * The worker injects real clients; tests inject what they need (e.g. a storage that fails on purpose). Each activity
 * is an adapter: the state changes it makes are domain functions (src/domain/<resource>/), which it runs in a
 * transaction of its own (`inTransaction`) or as the one statement they are (`inOneStatement`). Activities that only
 * work on our own database pass through `finalUnlessDependencyDown`, which decides what their unbounded retry may
 * retry; the ones that call outside services pass through `failingAsTemporal` and have bounded retries. Both make
 * work the domain refused (`WorkRefused`) final, with its failure type. Held to `Activities` (activity-signatures.ts),
 * the type workflows call them by. `deps` are the process's (src/services.ts), the same that use cases take.
 */
export function createActivities(deps: Deps): Activities {
  return {
    deleteOrphanedObjects: (input: DeleteOrphansInput) => deleteOrphanedObjects(deps, input),
    generatePostImage: (input: GeneratePostImageInput) => failingAsTemporal(() => generatePostImage(deps, input)),
    saveGeneratedImage: (input: SaveGeneratedImageInput) => inTransaction(deps.orm, (em) => saveGeneratedImage(em, input)),
    markPostFailed: (input: MarkPostFailedInput) => inTransaction(deps.orm, (em) => markPostFailed(em, input)),
    renderPostImage: (input: RenderPostImageInput) => failingAsTemporal(() => renderPostImage(deps, input)),
    saveRenderedImage: (input: SaveRenderedImageInput) => inTransaction(deps.orm, (em) => saveRenderedImage(em, input)),
    renderPostVideo: (input: RenderPostVideoInput) => failingAsTemporal(() => renderPostVideo(deps, input)),
    savePostVideo: (input: SavePostVideoInput) => inTransaction(deps.orm, (em) => savePostVideo(em, input)),
    recordVideoJobEnd: (input: VideoJobEnd) => inOneStatement(deps.orm, (em) => recordVideoJobEnd(em, input)),
    planPublication: (input: PublicationPlanInput) => inTransaction(deps.orm, (em) => recordPublicationPlan(em, input)),
    cancelPublication: (input: PublicationRef) => inTransaction(deps.orm, (em) => recordPublicationCancelled(em, input)),
    publishToTarget: (input: PublishToTargetInput) => failingAsTemporal(() => publishToTarget(deps, input)),
    markTargetFailed: (input: { targetId: string; reason: string }) => inOneStatement(deps.orm, (em) => markTargetFailed(em, input)),
    settlePublication: (input: SettlePublicationInput) => inTransaction(deps.orm, (em) => settlePublication(em, input)),
    startEventDelivery: (input: { eventId: string }) => finalUnlessDependencyDown(() => handOverEvent(deps, input.eventId)),
    handOverForgottenEvents: (input: { afterId?: string }) => finalUnlessDependencyDown(() => handOverForgottenEvents(deps, input)),
    // With the provider's kind, which decides where the run's generation draws its image (see requestGeneration).
    createScheduledPost: async (input: ScheduledRun) => ({
      ...(await inTransaction(deps.orm, (em) => createScheduledPost(em, input))),
      imageRunsLocally: deps.images.name === 'local',
    }),
    recordScheduleRun: (input: { scheduleId: string; error: string | null }) => recordScheduleRunAtItsFiring(deps, input),
    repairScheduleDrift: () => repairScheduleDrift(deps),
    deliverToWebhooks: (input: DeliverToWebhooksInput) => finalUnlessDependencyDown(() => deliverToWebhooks(deps, input)),
    attemptWebhookDelivery: (input: RedeliverWebhookInput) => attemptWebhookDelivery(deps, input),
    scheduleIdsOf: (input: { workspaceId: string }) => finalUnlessDependencyDown(() => scheduleIdsOf(deps, input)),
    applyPlanToSchedule: (input: { scheduleId: string }) => finalUnlessDependencyDown(() => applyPlanToSchedule(deps, input)),
    stopWorkspaceDeliveries: (input: { workspaceId: string }) => finalUnlessDependencyDown(() => stopWorkspaceDeliveries(deps, input)),
    refreshSocialConnection: (input: { connectionId: string; asOf: number }) => refreshSocialConnection(deps, input),
  };
}
