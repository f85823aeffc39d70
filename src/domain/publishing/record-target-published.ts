import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { PublishedSocialPost } from '../../adapters/social/social-connector.ts';
import { recordUsage } from '../usage/record-usage.ts';
import type { TargetPublication } from './begin-target-publication.ts';

/** The platform took the post: the target is `Published` with its link, and the usage item is added, in the caller's transaction. */
export async function recordTargetPublished(
  em: EntityManager,
  { target, connection, post }: TargetPublication,
  published: PublishedSocialPost & { publishedAt: string },
): Promise<void> {
  const locked = await em.findOneOrFail(PublishTarget, target.id);
  Object.assign(locked, {
    status: 'Published',
    externalPostId: published.externalPostId,
    externalUrl: published.url ?? null,
    errorMessage: null,
    publishedAt: new Date(published.publishedAt),
  });
  recordUsage(em, {
    workspaceId: post.workspaceId,
    type: 'SocialPublish',
    description: `Published "${post.title}" to ${connection.platform} as ${connection.accountName}.`,
    postId: post.id,
  });
}
