import { postSearchAttributes } from '../../src/adapters/temporal/search-attributes.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { GeneratePostInput } from '../contracts/generate-post.ts';

/**
 * How every caller starts a post's generation (the api's generate, a schedule's run as its child): the workflow ID
 * that lets one run per post at a time, what the Temporal UI finds it by and shows. The caller adds what is its own
 * (the api its task queue; a child inherits its parent's). Workflow code imports this file: nothing here does I/O.
 */
export function generatePostStart(post: { id: string; workspaceId: string; projectId: string; title: string }, input: Omit<GeneratePostInput, 'postId'>) {
  return {
    workflowId: workflowIds.postGenerate(post.id),
    args: [{ postId: post.id, ...input }] as [GeneratePostInput],
    staticSummary: `Generate a ${input.format} image for "${post.title}"`,
    typedSearchAttributes: postSearchAttributes(post),
  };
}
