import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { plannedUnderKey } from './planned-under-key.ts';
import { planPublication, publicationOutcome } from './publication-workflow.ts';
import { readSocialPublication, type SocialPublicationRequest } from './social-publication-request.ts';
import { withAttempts, type TargetWithAttempts } from './target-attempts.ts';
import type { PublicationOverrides } from '../../../workflows/contracts/post-publication.ts';

/**
 * `thread` and `media` go to every connection with its overrides (an override's own `media` wins), which the
 * workflow hands to the plan as they are.
 */
function connectionOverrides(connectionIds: string[], request: SocialPublicationRequest): PublicationOverrides | undefined {
  if (!request.thread && !request.media) return request.overrides;
  const shared = { ...(request.thread ? { thread: true } : {}), ...(request.media ? { media: request.media } : {}) };
  return Object.fromEntries(connectionIds.map((id) => [id, { ...shared, ...request.overrides?.[id], ...(request.thread ? { thread: true } : {}) }]));
}

/**
 * Publishes the post to social connections, now or at `scheduledAt`, each sent its overrides if any. Answers the
 * publication's targets with their attempts: after their outcomes when publishing now (within the wait limit;
 * `completed` false past it), at once in `Scheduled` state otherwise. `requestKey` names the request's
 * Idempotency-Key (requestFingerprint): a retry gets the publication the first send planned (planPublication).
 */
export async function publishToSocial(
  deps: Deps,
  caller: Caller,
  postId: string,
  request: SocialPublicationRequest,
  requestKey?: string,
): Promise<{ targets: TargetWithAttempts[]; completed: boolean }> {
  const em = deps.orm.em.fork();
  const { post, connections } = await readSocialPublication(em, caller, postId, request, {
    planned: await plannedUnderKey(em, caller.workspaceId, requestKey),
  });
  const overrides = connectionOverrides(
    connections.map((connection) => connection.id),
    request,
  );
  const planned = await planPublication(deps, post, {
    publishAt: request.scheduledAt ?? null,
    connectionIds: connections.map((connection) => connection.id),
    ...(overrides ? { overrides } : {}),
    ...(requestKey === undefined ? {} : { requestKey }),
  });
  const { plan } = planned;
  const completed = plan.scheduled || (await publicationOutcome(deps, planned)).state !== 'running';
  const read = deps.orm.em.fork();
  const targets = await withAttempts(read, await read.find(PublishTarget, { id: { $in: plan.targetIds } }, { orderBy: { createdAt: 'asc' } }));
  return { targets, completed };
}
