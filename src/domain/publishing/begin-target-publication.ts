import type { EntityManager } from '@mikro-orm/postgresql';
import { Post } from '../../adapters/database/entities/post.ts';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { WorkRefused } from '../work-refused.ts';

export type TargetPublication = { target: PublishTarget; connection: SocialConnection; post: Post };

/**
 * Marks one target `Publishing` and returns what its post to the platform needs; null when there is nothing to do
 * (the target is gone, already published, or cancelled). A deleted connection or post ends the target for good. A
 * publication planned for later whose post is no longer `scheduled` (a generate, render or restore made it a draft
 * meanwhile) cancels a target not yet attempted instead.
 */
export async function beginTargetPublication(
  em: EntityManager,
  targetId: string,
  options: { onlyIfStillScheduled: boolean },
): Promise<TargetPublication | null> {
  const target = await em.findOne(PublishTarget, targetId);
  if (!target || target.status === 'Published' || target.status === 'Cancelled') return null;
  const connection = await em.findOne(SocialConnection, target.connectionId);
  if (!connection) throw new WorkRefused(failureTypes.connectionNotFound, 'The social connection was deleted before the post was published.');
  if (connection.status === 'needs_reauth') throw needsReauth(connection);
  const post = await em.findOne(Post, target.postId);
  if (!post) throw new WorkRefused(failureTypes.postDeleted, `Post ${target.postId} was deleted before it was published.`);

  // An attempt already under way goes on (the platform may have the post; its idempotency key finds it).
  target.status = options.onlyIfStillScheduled && post.status !== 'scheduled' && target.status !== 'Publishing' ? 'Cancelled' : 'Publishing';
  await em.flush();
  if (target.status === 'Cancelled') return null;
  return { target, connection, post };
}

/** The refusal of a publication to a connection whose platform refused its tokens: the person must connect it again. */
export function needsReauth(connection: SocialConnection): WorkRefused {
  const why = connection.lastError ? ` (${connection.lastError})` : '';
  return new WorkRefused(
    failureTypes.connectionNeedsReauth,
    `The ${connection.platform} connection ${connection.accountName} needs to be connected again: the platform no longer accepts its authorization${why}.`,
  );
}
