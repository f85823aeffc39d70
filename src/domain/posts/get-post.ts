import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost, type PostRecord } from './read-post.ts';

export function getPost(deps: Deps, caller: Caller, id: string): Promise<PostRecord> {
  return readPost(deps.orm.em.fork(), caller.workspaceId, id);
}
