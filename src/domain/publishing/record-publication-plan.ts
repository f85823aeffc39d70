import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublicationOverrides, PublicationPlan } from '../../../workflows/contracts/post-publication.ts';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { loadPostForUpdate } from '../posts/load-post.ts';
import { WorkRefused } from '../work-refused.ts';

export type PublicationPlanInput = {
  postId: string;
  publicationId: string;
  publishAt: string;
  connectionIds: string[];
  /** Absent from plans made before overrides existed. */
  overrides?: PublicationOverrides;
  immediate: boolean;
};
/** What a `plan` update of the publication workflow answers once the plan is recorded. */

/**
 * Records the publication plan, in the caller's transaction: the post becomes `scheduled` for a later time, and every
 * connection gets a publish target (`Scheduled` or `Pending`) with the plan's overrides for it (and whether it is sent
 * as a thread). Planning again moves
 * the time, adds connections and replaces the overrides of the connections it names; targets keep their idempotency
 * keys, so a retried plan changes nothing.
 */
export async function recordPublicationPlan(em: EntityManager, input: PublicationPlanInput): Promise<PublicationPlan> {
  const post = await loadPostForUpdate(em, input.postId);
  const publishAt = new Date(input.publishAt);
  for (const connectionId of input.connectionIds) {
    const connection = await em.findOne(SocialConnection, { id: connectionId, workspaceId: post.workspaceId });
    if (!connection) throw new WorkRefused(failureTypes.connectionNotFound, `Social connection ${connectionId} no longer exists.`);
    const override = input.overrides?.[connectionId];
    const overrides = { textOverride: override?.text ?? null, altTextOverride: override?.altText ?? null, thread: override?.thread ?? false };
    const existing = await em.findOne(PublishTarget, { publicationId: input.publicationId, connectionId });
    if (existing) Object.assign(existing, overrides);
    else {
      em.create(PublishTarget, {
        postId: post.id,
        connectionId,
        platform: connection.platform,
        publicationId: input.publicationId,
        status: 'Pending',
        idempotencyKey: newId(),
        ...overrides,
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
