import type { Post } from '../../data/entities/post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from './find-post.ts';

export function getPost(deps: Deps, caller: Caller, id: string): Promise<Post> {
  return findPost(deps.orm.em.fork(), caller.workspaceId, id);
}
