import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { notFound } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost } from '../posts/read-post.ts';
import { planPublication, publicationOutcome } from './publication-workflow.ts';
import { requireFuture } from './schedule-post.ts';
import { withAttempts, type TargetWithAttempts } from './target-attempts.ts';

/**
 * Publishes the post to social connections, now or at `scheduledAt`. Answers the publication's targets: after
 * their outcomes (and attempts) when publishing now (within the wait limit; `completed` false past it), at once in `Scheduled`
 * state otherwise.
 */
export async function publishToSocial(
  deps: Deps,
  caller: Caller,
  postId: string,
  request: { connectionIds: string[]; scheduledAt?: string | null },
): Promise<{ targets: TargetWithAttempts[]; completed: boolean }> {
  if (request.scheduledAt) requireFuture(request.scheduledAt);
  const em = deps.orm.em.fork();
  const post = await readPost(em, caller.workspaceId, postId);
  const connectionIds = [...new Set(request.connectionIds)];
  const found = await em.find(SocialConnection, { id: { $in: connectionIds }, workspaceId: caller.workspaceId });
  const missing = connectionIds.find((id) => !found.some((connection) => connection.id === id));
  if (missing) throw notFound(`Social connection ${missing}`);

  const planned = await planPublication(deps, post, { publishAt: request.scheduledAt ?? null, connectionIds });
  const { plan } = planned;
  const completed = plan.scheduled || (await publicationOutcome(deps, planned)).state === 'completed';
  const read = deps.orm.em.fork();
  const targets = await withAttempts(read, await read.find(PublishTarget, { id: { $in: plan.targetIds } }, { orderBy: { createdAt: 'asc' } }));
  return { targets, completed };
}
