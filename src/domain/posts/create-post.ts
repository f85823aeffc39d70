import type { EntityManager } from '@mikro-orm/postgresql';
import { Post } from '../../adapters/database/entities/post.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { findBrandKit, findProject } from '../find-in-workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { createOnce } from '../idempotency/request-effects.ts';

export type CreatePostInput = { title: string; prompt: string; projectId: string; brandKitId?: string };

/**
 * A draft post without an image; generation comes next (POST /posts/{id}/generate). `requestKey` names the request's
 * Idempotency-Key (requestFingerprint): a retry whose first answer was lost gets the post the first send created.
 */
export async function createPost(deps: Deps, caller: Caller, input: CreatePostInput, requestKey?: string): Promise<Post> {
  return deps.orm.em
    .fork()
    .transactional((em) =>
      createOnce(em, caller.workspaceId, requestKey, { type: 'post', find: (id) => em.findOne(Post, { id, workspaceId: caller.workspaceId }) }, () =>
        newPost(em, caller, input),
      ),
    );
}

async function newPost(em: EntityManager, caller: Caller, input: CreatePostInput): Promise<Post> {
  const project = await findProject(em, caller.workspaceId, input.projectId);
  if (project.status === 'archived') {
    throw new AppError('conflict', `Project ${project.id} is archived; re-activate it to add posts.`);
  }
  if (input.brandKitId) await findBrandKit(em, caller.workspaceId, input.brandKitId);
  return em.create(Post, {
    workspaceId: caller.workspaceId,
    projectId: project.id,
    title: input.title,
    prompt: input.prompt,
    brandKitId: input.brandKitId ?? null,
  });
}
