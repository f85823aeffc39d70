import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublicationPlan } from '../../../workflows/contracts/post-publication.ts';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { loadPostForUpdate } from '../posts/load-post.ts';
import { WorkRefused } from '../work-refused.ts';

export type PublicationPlanInput = { postId: string; publicationId: string; publishAt: string; connectionIds: string[]; immediate: boolean };
/** What a `plan` update of the publication workflow answers once the plan is recorded. */

/**
 * Records the publication plan, in the caller's transaction: the post becomes `scheduled` for a later time, and every
 * connection gets a publish target (`Scheduled` or `Pending`). Planning again moves the time and adds connections;
 * targets keep their idempotency keys, so a retried plan changes nothing.
 */
export async function recordPublicationPlan(em: EntityManager, input: PublicationPlanInput): Promise<PublicationPlan> {
  const post = await loadPostForUpdate(em, input.postId);
  const publishAt = new Date(input.publishAt);
  for (const connectionId of input.connectionIds) {
    const connection = await em.findOne(SocialConnection, { id: connectionId, workspaceId: post.workspaceId });
    if (!connection) throw new WorkRefused(failureTypes.connectionNotFound, `Social connection ${connectionId} no longer exists.`);
    const existing = await em.findOne(PublishTarget, { publicationId: input.publicationId, connectionId });
    if (!existing) {
      em.create(PublishTarget, {
        postId: post.id,
        connectionId,
        platform: connection.platform,
        publicationId: input.publicationId,
        status: 'Pending',
        idempotencyKey: newId(),
      });
    }
  }
  await em.flush();
  const targets = await em.find(PublishTarget, { publicationId: input.publicationId }, { orderBy: { createdAt: 'asc' } });
  for (const target of targets) {
    target.status = input.immediate ? 'Pending' : 'Scheduled';
    target.scheduledAt = input.immediate ? null : publishAt;
  }
  if (!input.immediate) {
    Object.assign(post, { status: 'scheduled', scheduledAt: publishAt, failureReason: null, updatedAt: new Date() });
  }
  return { publishAt: publishAt.toISOString(), scheduled: !input.immediate, targetIds: targets.map((target) => target.id) };
}
