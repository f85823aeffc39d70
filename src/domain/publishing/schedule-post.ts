import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost, type PostRecord } from '../posts/read-post.ts';
import { plannedUnderKey } from './planned-under-key.ts';
import { planPublication } from './publication-workflow.ts';

/**
 * Schedules the post's publication (or moves it): the post becomes `scheduled`, and its workflow sleeps on a
 * durable timer until then. A time that is not in the future answers 400: to publish now, publish. `requestKey` names
 * the request's Idempotency-Key (requestFingerprint): a retry gets the plan the first send made.
 */
export async function schedulePost(deps: Deps, caller: Caller, postId: string, scheduledAt: string, requestKey?: string): Promise<PostRecord> {
  if (!(await plannedUnderKey(deps.orm.em.fork(), caller.workspaceId, requestKey))) requireFuture(scheduledAt);
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  await planPublication(deps, post, { publishAt: scheduledAt, connectionIds: [], ...(requestKey === undefined ? {} : { requestKey }) });
  return readPost(deps.orm.em.fork(), caller.workspaceId, postId);
}

export function requireFuture(scheduledAt: string): void {
  if (new Date(scheduledAt).getTime() > Date.now()) return;
  throw new AppError('validation-failed', 'scheduledAt must be in the future; to publish now, call POST /posts/{id}/publish.', {
    errors: [{ location: 'body', path: '/scheduledAt', message: 'must be in the future' }],
  });
}
