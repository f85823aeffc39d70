import type { PublishTarget } from '../../data/entities/publish-target.ts';
import type { Schemas } from '../schemas.ts';

export function presentPublishTarget(target: PublishTarget): Schemas['PublishTarget'] {
  return {
    id: target.id,
    connectionId: target.connectionId,
    platform: target.platform,
    status: target.status,
    externalPostId: target.externalPostId ?? null,
    externalUrl: target.externalUrl ?? null,
    errorMessage: target.errorMessage ?? null,
    scheduledAt: target.scheduledAt?.toISOString() ?? null,
    publishedAt: target.publishedAt?.toISOString() ?? null,
    createdAt: target.createdAt.toISOString(),
  };
}
