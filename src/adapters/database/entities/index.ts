import { ApiKey } from './api-key.ts';
import { BrandKit } from './brand-kit.ts';
import { IdempotencyKey } from './idempotency-key.ts';
import { ImageKeyRejection } from './image-key-rejection.ts';
import { OAuthAuthorization } from './oauth-authorization.ts';
import { OrphanedObject } from './orphaned-object.ts';
import { PlatformQuotaDay } from './platform-quota-day.ts';
import { Post } from './post.ts';
import { PostVersion } from './post-version.ts';
import { Project } from './project.ts';
import { PublicationRequest } from './publication-request.ts';
import { PublishTarget } from './publish-target.ts';
import { RequestEffect } from './request-effect.ts';
import { PublishTargetAttempt } from './publish-target-attempt.ts';
import { PublishTargetPart } from './publish-target-part.ts';
import { Schedule } from './schedule.ts';
import { SocialConnection } from './social-connection.ts';
import { UsageActivity } from './usage-activity.ts';
import { VideoJob } from './video-job.ts';
import { Webhook } from './webhook.ts';
import { WebhookDelivery } from './webhook-delivery.ts';
import { Workspace } from './workspace.ts';
import { WorkspaceEvent } from './workspace-event.ts';

export const entities = [
  Workspace,
  ApiKey,
  Project,
  BrandKit,
  OrphanedObject,
  Post,
  PostVersion,
  UsageActivity,
  WorkspaceEvent,
  SocialConnection,
  PublishTarget,
  PublishTargetAttempt,
  PublishTargetPart,
  PlatformQuotaDay,
  ImageKeyRejection,
  Webhook,
  WebhookDelivery,
  Schedule,
  VideoJob,
  IdempotencyKey,
  PublicationRequest,
  RequestEffect,
  OAuthAuthorization,
];
