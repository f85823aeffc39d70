import { Post } from '../../adapters/database/entities/post.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { findBrandKit, findProject } from '../find-in-workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { createdBy, recordCreated } from '../idempotency/request-effects.ts';

export type CreatePostInput = { title: string; prompt: string; projectId: string; brandKitId?: string };

/**
 * A draft post without an image; generation comes next (POST /posts/{id}/generate). `requestKey` names the request's
 * Idempotency-Key (requestFingerprint): a retry whose first answer was lost gets the post the first send created.
 */
export async function createPost(deps: Deps, caller: Caller, input: CreatePostInput, requestKey?: string): Promise<Post> {
  return deps.orm.em.fork().transactional(async (em) => {
    const created = requestKey === undefined ? undefined : await createdBy(em, caller.workspaceId, requestKey, 'post');
    if (created !== undefined) {
      const post = await em.findOne(Post, { id: created, workspaceId: caller.workspaceId });
      if (!post) throw new AppError('not-found', `Post ${created}, which this request created, has been deleted since.`);
      return post;
    }
    const project = await findProject(em, caller.workspaceId, input.projectId);
    if (project.status === 'archived') {
      throw new AppError('conflict', `Project ${project.id} is archived; re-activate it to add posts.`);
    }
    if (input.brandKitId) await findBrandKit(em, caller.workspaceId, input.brandKitId);
    const post = em.create(Post, {
      id: newId(),
      workspaceId: caller.workspaceId,
      projectId: project.id,
      title: input.title,
      prompt: input.prompt,
      brandKitId: input.brandKitId ?? null,
    });
    if (requestKey !== undefined) await recordCreated(em, caller.workspaceId, requestKey, 'post', post.id);
    return post;
  });
}
