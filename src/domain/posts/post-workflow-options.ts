import type { SearchAttributePair } from '@temporalio/common';
import type { Post } from '../../data/entities/post.ts';
import { searchAttributes } from '../../temporal/search-attributes.ts';

/** Search attributes of every workflow about a post, so the Temporal UI can find them by workspace, project or post. */
export function postSearchAttributes(post: Pick<Post, 'id' | 'workspaceId' | 'projectId'>): SearchAttributePair[] {
  return [
    { key: searchAttributes.workspaceId, value: post.workspaceId },
    { key: searchAttributes.projectId, value: post.projectId },
    { key: searchAttributes.postId, value: post.id },
  ];
}
