import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import { anyWebhookTakes } from '../../adapters/webhook-sender/subscribed-webhooks.ts';
import { recordPostEvent } from '../events/post-event.ts';
import { loadPostForUpdate } from '../posts/load-post.ts';
import { recordUsage } from '../usage/record-usage.ts';

export type SettlePublicationInput = {
  postId: string;
  publicationId: string;
  publishedAt: string;
  targetIds: string[];
  /** Planned for later: it stands only while the post is `scheduled` (absent from activities scheduled before it existed). */
  onlyIfStillScheduled?: boolean;
};
export type SettledPublication = {
  outcome: 'published' | 'failed' | 'cancelled';
  eventId: string | null;
  /** Whether an active webhook takes the event: only then is it handed to a delivery workflow. */
  subscribed: boolean;
};

/**
 * Decides what the publication did to the post and records it with its event, in the caller's transaction:
 * - without social targets the post itself is published;
 * - with targets, the post is published when at least one target was, and failed when none was (the reasons of
 *   every target are kept in `failureReason`);
 * - planned for later, it is cancelled when the post is no longer `scheduled` and no platform has it.
 */
export async function settlePublication(em: EntityManager, input: SettlePublicationInput): Promise<SettledPublication> {
  const post = await loadPostForUpdate(em, input.postId);
  const targets = input.targetIds.length > 0 ? await em.find(PublishTarget, { id: { $in: input.targetIds } }) : [];
  const sourceId = `publication-${input.publicationId}`;
  // A post made a draft since it was scheduled is left as it is, unless a platform already has it, or this settle
  // already ran (a retry after its commit finds the post published or failed, and its event, and answers the same).
  if (
    input.onlyIfStillScheduled &&
    post.status !== 'scheduled' &&
    !targets.some((target) => target.status === 'Published') &&
    !(await em.findOne(WorkspaceEvent, { sourceId }))
  ) {
    return { outcome: 'cancelled', eventId: null, subscribed: false };
  }
  const published = targets.length === 0 || targets.some((target) => target.status === 'Published');
  if (published) {
    Object.assign(post, { status: 'published', publishedAt: new Date(input.publishedAt), failureReason: null, updatedAt: new Date() });
    if (targets.length === 0) {
      recordUsage(em, { workspaceId: post.workspaceId, type: 'PostPublish', description: `Published "${post.title}".`, postId: post.id });
    }
    const event = await recordPostEvent(em, post, { type: 'post.published', sourceId });
    return { outcome: 'published', eventId: event.id, subscribed: await handedOverUnlessTaken(em, event) };
  }
  const reason = `Publishing failed on every connection: ${targets.map((target) => `${target.platform}: ${target.errorMessage ?? target.status}`).join('; ')}`;
  Object.assign(post, { status: 'failed', failureReason: reason, updatedAt: new Date() });
  const event = await recordPostEvent(em, post, { type: 'post.failed', sourceId, reason });
  return { outcome: 'failed', eventId: event.id, subscribed: await handedOverUnlessTaken(em, event) };
}

/**
 * Whether an active webhook takes the event; one that none takes is never handed over by the workflow, so it is
 * marked handed over here, and the event sweep leaves it alone.
 */
async function handedOverUnlessTaken(em: EntityManager, event: WorkspaceEvent): Promise<boolean> {
  const subscribed = await anyWebhookTakes(em, event.workspaceId, event.type);
  if (!subscribed) event.handedOverAt ??= new Date();
  return subscribed;
}
