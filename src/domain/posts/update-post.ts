import type { Post, PostStatus } from '../../adapters/database/entities/post.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { findBrandKit, findPost } from '../find-in-workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { cancelPublication, planPublication, publicationOutcome } from '../publishing/publication-workflow.ts';
import { requireFuture } from '../publishing/schedule-post.ts';
import { readPost } from './read-post.ts';

export type UpdatePostInput = {
  title?: string;
  prompt?: string;
  status?: PostStatus;
  scheduledAt?: string | null;
  brandKitId?: string | null;
};

/**
 * Any subset of the editable fields; `updatedAt` moves on every update. Status and time changes act on the post's
 * publication, the same way the publish and schedule actions do:
 * - `status: published` publishes now; `status: scheduled` schedules at `scheduledAt` (given or already set);
 * - a new `scheduledAt` on a scheduled post moves its publication; `scheduledAt: null` cancels it;
 * - `status: draft` or `failed` cancels a pending publication.
 */
export async function updatePost(deps: Deps, caller: Caller, id: string, input: UpdatePostInput): Promise<Post> {
  const current = await readPost(deps.orm.em.fork(), caller.workspaceId, id);
  if (input.brandKitId) await findBrandKit(deps.orm.em.fork(), caller.workspaceId, input.brandKitId);
  await actOnPublication(deps, current, input);

  return deps.orm.em.fork().transactional(async (em) => {
    const post = await findPost(em, caller.workspaceId, id, { lock: true });
    if (input.title !== undefined) post.title = input.title;
    if (input.prompt !== undefined) post.prompt = input.prompt;
    if (input.brandKitId !== undefined) post.brandKitId = input.brandKitId;
    if (input.status === 'draft' || input.status === 'failed') {
      post.status = input.status;
      if (input.status === 'draft') post.failureReason = null;
    }
    // A time for a post that is not scheduled is only kept; it takes effect when the post is scheduled.
    if (input.scheduledAt !== undefined && post.status !== 'scheduled' && input.status !== 'published') {
      post.scheduledAt = input.scheduledAt === null ? null : new Date(input.scheduledAt);
    }
    post.updatedAt = new Date();
    return post;
  });
}

async function actOnPublication(deps: Deps, post: Post, input: UpdatePostInput): Promise<void> {
  if (input.status === 'published') {
    await publicationOutcome(deps, await planPublication(deps, post, { publishAt: null, connectionIds: [] }));
    return;
  }
  if (input.status === 'scheduled' || (input.status === undefined && post.status === 'scheduled' && input.scheduledAt)) {
    const at = input.scheduledAt ?? post.scheduledAt?.toISOString();
    if (!at) {
      throw new AppError('validation-failed', 'A scheduled post needs a scheduledAt.', {
        errors: [{ location: 'body', path: '/scheduledAt', message: 'is required with status scheduled' }],
      });
    }
    requireFuture(at);
    await planPublication(deps, post, { publishAt: at, connectionIds: [] });
    return;
  }
  const cancels = input.status === 'draft' || input.status === 'failed' || (input.scheduledAt === null && post.status === 'scheduled');
  if (cancels && post.status === 'scheduled') await cancelPublication(deps, post.id);
}
