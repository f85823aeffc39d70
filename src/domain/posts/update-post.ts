import type { Post, PostStatus } from '../../data/entities/post.ts';
import { findBrandKit } from '../brand-kits/find-brand-kit.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from './find-post.ts';

export type UpdatePostInput = {
  title?: string;
  prompt?: string;
  status?: PostStatus;
  scheduledAt?: string | null;
  brandKitId?: string | null;
};

/** Any subset of the editable fields; `updatedAt` moves on every update. */
export async function updatePost(deps: Deps, caller: Caller, id: string, input: UpdatePostInput): Promise<Post> {
  return deps.orm.em.fork().transactional(async (em) => {
    const post = await findPost(em, caller.workspaceId, id, { lock: true });
    if (input.brandKitId) await findBrandKit(em, caller.workspaceId, input.brandKitId);
    if (input.title !== undefined) post.title = input.title;
    if (input.prompt !== undefined) post.prompt = input.prompt;
    if (input.status !== undefined) {
      post.status = input.status;
      if (input.status !== 'failed') post.failureReason = null;
    }
    if (input.scheduledAt !== undefined) post.scheduledAt = input.scheduledAt === null ? null : new Date(input.scheduledAt);
    if (input.brandKitId !== undefined) post.brandKitId = input.brandKitId;
    // Even an update that changes nothing is an update the caller asked for.
    post.updatedAt = new Date();
    return post;
  });
}
