import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublicationOverrides, PublicationPlan } from '../../../workflows/contracts/post-publication.ts';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { PublicationRequest } from '../../adapters/database/entities/publication-request.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { keyExpiresAt } from '../idempotency/claim-idempotency-key.ts';
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
  /** What names the request's `Idempotency-Key` (requestFingerprint), if it sent one. */
  requestKey?: string;
};
/** What a `plan` update of the publication workflow answers once the plan is recorded. */

/**
 * Records the publication plan, in the caller's transaction: the post becomes `scheduled` for a later time, and every
 * connection gets a publish target (`Scheduled` or `Pending`) with the plan's overrides for it (and whether it is sent
 * as a thread). Planning again moves
 * the time, adds connections and replaces the overrides of the connections it names; targets keep their idempotency
 * keys, so a retried plan changes nothing.
 *
 * A plan sent with the request's `Idempotency-Key` is recorded under it in the same transaction, and a plan with a key
 * already recorded changes nothing and answers what was recorded: `replayed` when another publication (a run that
 * has ended) recorded it. The post's row lock orders plans of one post, so two runs cannot both record one key.
 */
export async function recordPublicationPlan(em: EntityManager, input: PublicationPlanInput): Promise<PublicationPlan> {
  const post = await loadPostForUpdate(em, input.postId);
  if (input.requestKey !== undefined) {
    const recorded = await em.findOne(PublicationRequest, { workspaceId: post.workspaceId, key: input.requestKey, expiresAt: { $gt: new Date() } });
    if (recorded) return { ...recorded.plan, ...(recorded.publicationId === input.publicationId ? {} : { replayed: true }) };
  }
  const publishAt = new Date(input.publishAt);
  for (const connectionId of input.connectionIds) {
    const connection = await em.findOne(SocialConnection, { id: connectionId, workspaceId: post.workspaceId });
    if (!connection) throw new WorkRefused(failureTypes.connectionNotFound, `Social connection ${connectionId} no longer exists.`);
    const override = input.overrides?.[connectionId];
    const overrides = {
      textOverride: override?.text ?? null,
      altTextOverride: override?.altText ?? null,
      thread: override?.thread ?? false,
      media: override?.media ?? null,
    };
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
  const plan = { publishAt: publishAt.toISOString(), scheduled: !input.immediate, targetIds: targets.map((target) => target.id) };
  if (input.requestKey !== undefined) await recordRequest(em, post, input.publicationId, input.requestKey, plan);
  return plan;
}

async function recordRequest(
  em: EntityManager,
  post: { id: string; workspaceId: string },
  publicationId: string,
  key: string,
  plan: PublicationPlan,
): Promise<void> {
  // A key past its lifetime may be used again, for another request.
  await em.nativeDelete(PublicationRequest, { workspaceId: post.workspaceId, key, expiresAt: { $lte: new Date() } });
  em.create(PublicationRequest, {
    workspaceId: post.workspaceId,
    key,
    postId: post.id,
    publicationId,
    plan,
    expiresAt: keyExpiresAt(),
  });
  await em.flush();
}
