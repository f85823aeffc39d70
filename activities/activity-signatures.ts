import type { MarkPostFailedInput } from '../src/domain/posts/mark-post-failed.ts';
import type { SaveGeneratedImageInput } from '../src/domain/generation/save-generated-image.ts';
import type { SaveRenderedImageInput } from '../src/domain/generation/save-rendered-image.ts';
import type { PublicationRef } from '../src/domain/publishing/record-publication-cancelled.ts';
import type { PublicationPlanInput } from '../src/domain/publishing/record-publication-plan.ts';
import type { SettledPublication, SettlePublicationInput } from '../src/domain/publishing/settle-publication.ts';
import type { ScheduledPost, ScheduledRun } from '../src/domain/schedules/create-scheduled-post.ts';
import type { DeleteOrphansInput } from '../src/domain/storage/purge-orphaned-objects.ts';
import type { VideoJobEnd } from '../src/domain/video/record-video-job-end.ts';
import type { SavePostVideoInput } from '../src/domain/video/save-post-video.ts';
import type { GenerationResult } from '../workflows/contracts/generate-post.ts';
import type { RefreshOutcome } from '../workflows/contracts/keep-connection-alive.ts';
import type { PublicationPlan } from '../workflows/contracts/post-publication.ts';
import type { ReconcileReport } from '../workflows/contracts/reconcile-schedules.ts';
import type { SweptPage } from '../workflows/contracts/sweep-events.ts';
import type { RedeliverWebhookInput, RedeliveryResult } from '../workflows/contracts/redeliver-webhook.ts';
import type { RenderResult } from '../workflows/contracts/render-post.ts';
import type { DeliverToWebhooksInput, RoundResult } from './deliver-to-webhooks.ts';
export type { DeferredWebhook, RoundResult } from './deliver-to-webhooks.ts';
import type { GeneratedArtwork, GeneratePostImageInput } from './generate-post-image.ts';
import type { MediaWait, PublishToTargetInput } from './publish-to-target.ts';
import type { RenderedImage, RenderPostImageInput } from './render-post-image.ts';
import type { RenderedVideo, RenderPostVideoInput } from './render-post-video.ts';

/**
 * Every activity as workflows call it: what it takes and what it answers. Workflows name their activities by this
 * type (proxyActivities<Activities>), and createActivities (index.ts) is held to it. Types only, and none from the
 * activities that start workflows: so naming it pulls no workflow back into the workflows that call activities.
 * The keys are activity types, recorded in workflow histories: never rename one.
 */
export type Activities = {
  deleteOrphanedObjects: (input: DeleteOrphansInput) => Promise<{ deleted: number; more: boolean }>;
  generatePostImage: (input: GeneratePostImageInput) => Promise<GeneratedArtwork>;
  saveGeneratedImage: (input: SaveGeneratedImageInput) => Promise<GenerationResult>;
  markPostFailed: (input: MarkPostFailedInput) => Promise<{ eventId: string | null }>;
  renderPostImage: (input: RenderPostImageInput) => Promise<RenderedImage>;
  saveRenderedImage: (input: SaveRenderedImageInput) => Promise<RenderResult>;
  renderPostVideo: (input: RenderPostVideoInput) => Promise<RenderedVideo>;
  savePostVideo: (input: SavePostVideoInput) => Promise<{ videoKey: string }>;
  recordVideoJobEnd: (input: VideoJobEnd) => Promise<void>;
  planPublication: (input: PublicationPlanInput) => Promise<PublicationPlan>;
  cancelPublication: (input: PublicationRef) => Promise<void>;
  publishToTarget: (input: PublishToTargetInput) => Promise<MediaWait | undefined>;
  markTargetFailed: (input: { targetId: string; reason: string }) => Promise<void>;
  settlePublication: (input: SettlePublicationInput) => Promise<SettledPublication>;
  /** Hands an event to its delivery workflow; whether one was started (not when no active webhook takes it). */
  startEventDelivery: (input: { eventId: string }) => Promise<{ started: boolean }>;
  /** One page of the event sweep: the events nobody handed over, handed over now. */
  handOverForgottenEvents: (input: { afterId?: string }) => Promise<SweptPage>;
  /** The run's post, and whether the provider draws locally (where its generation draws its image). */
  createScheduledPost: (input: ScheduledRun) => Promise<ScheduledPost & { imageRunsLocally: boolean }>;
  recordScheduleRun: (input: { scheduleId: string; error: string | null }) => Promise<void>;
  repairScheduleDrift: () => Promise<ReconcileReport>;
  deliverToWebhooks: (input: DeliverToWebhooksInput) => Promise<RoundResult>;
  attemptWebhookDelivery: (input: RedeliverWebhookInput) => Promise<RedeliveryResult>;
  scheduleIdsOf: (input: { workspaceId: string }) => Promise<string[]>;
  applyPlanToSchedule: (input: { scheduleId: string }) => Promise<void>;
  /** How many of the workspace's deliveries waiting on the ladder were woken to stop. */
  stopWorkspaceDeliveries: (input: { workspaceId: string }) => Promise<number>;
  /** Refreshes an OAuth connection's tokens when they expire within the margin as of `asOf` (the workflow's clock, epoch ms). */
  refreshSocialConnection: (input: { connectionId: string; asOf: number }) => Promise<RefreshOutcome>;
};
