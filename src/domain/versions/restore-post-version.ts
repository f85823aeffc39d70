import { PostVersion } from '../../adapters/database/entities/post-version.ts';
import { Post } from '../../adapters/database/entities/post.ts';
import { createOnce } from '../idempotency/request-effects.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { notFound } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from '../find-in-workspace.ts';
import { appendVersion } from './append-version.ts';

/**
 * Brings back a version's image, artwork, prompt and format and makes the post a draft again. The restore is
 * itself a new version ("Restored version 2"), so history only ever grows and a restore can be undone. A keyed
 * restore is recorded with its version, so a retry whose first answer was lost adds no second one.
 */
export async function restorePostVersion(deps: Deps, caller: Caller, postId: string, versionId: string, requestKey?: string): Promise<Post> {
  return deps.orm.em.fork().transactional(async (em) => {
    const find = (id: string) => em.findOne(Post, { id, workspaceId: caller.workspaceId });
    return createOnce(em, caller.workspaceId, requestKey, { type: 'post-restore', find, noun: 'post' }, async () => {
      const post = await findPost(em, caller.workspaceId, postId, { lock: true });
      const version = await em.findOne(PostVersion, { id: versionId, postId: post.id });
      if (!version) throw notFound(`Version ${versionId} of post ${postId}`);
      post.imageKey = version.imageKey;
      post.artworkKey = version.artworkKey ?? null;
      post.prompt = version.prompt;
      post.format = version.format;
      post.status = 'draft';
      post.failureReason = null;
      post.updatedAt = new Date();
      await appendVersion(em, {
        postId: post.id,
        kind: 'restored',
        label: `Restored version ${version.versionNumber}`,
        sourceId: newId(),
        imageKey: version.imageKey,
        artworkKey: version.artworkKey ?? null,
        prompt: version.prompt,
        format: version.format,
      });
      return post;
    });
  });
}
