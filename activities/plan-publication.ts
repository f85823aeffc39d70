import { ApplicationFailure } from '@temporalio/activity';
import { PublishTarget } from '../src/data/entities/publish-target.ts';
import { SocialConnection } from '../src/data/entities/social-connection.ts';
import { newId } from '../src/data/new-id.ts';
import type { ActivityDeps } from './index.ts';
import { loadPost } from './load-post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

export type PlanPublicationInput = { postId: string; publicationId: string; publishAt: string; connectionIds: string[]; immediate: boolean };
export type PublicationPlan = { publishAt: string; scheduled: boolean; targetIds: string[] };

/**
 * Records the publication plan: the post becomes `scheduled` for a later time, and every connection gets a publish
 * target (`Scheduled` or `Pending`). Planning again moves the time and adds connections; targets keep their
 * idempotency keys, so a retried plan changes nothing.
 */
export async function planPublication(deps: ActivityDeps, input: PlanPublicationInput): Promise<PublicationPlan> {
  return deps.orm.em.fork().transactional(async (em) => {
    const { post } = await loadPost(em, input.postId, { lock: true });
    const publishAt = new Date(input.publishAt);
    for (const connectionId of input.connectionIds) {
      const connection = await em.findOne(SocialConnection, { id: connectionId, workspaceId: post.workspaceId });
      if (!connection) throw ApplicationFailure.nonRetryable(`Social connection ${connectionId} no longer exists.`, failureTypes.connectionNotFound);
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
  });
}
