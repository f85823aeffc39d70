import { createPost } from '../../../domain/posts/create-post.ts';
import { presentCreatedPost } from '../../presenters/post.ts';
import type { Schemas } from '../../schemas.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { changesWorkspace, withIdempotencyKey } from './keyed-input.ts';

export function createPostTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('createPost');
  return {
    name: 'create_post',
    title: 'Create a post',
    description:
      'Creates a draft post in a project from a title and a prompt (POST /api/v1/posts); generate_post then makes its image. Pass an idempotencyKey so that a retry does not create a second post.',
    annotations: changesWorkspace,
    changes: true,
    operationId: 'createPost',
    keyRequired: false,
    inputSchema: withIdempotencyKey(spec, inputSchemaOf(operation), false),
    outputSchema: responseSchemaOf(operation),
    operation: (input) => ({ method: 'POST', path: '/api/v1/posts', body: input }),
    summary: (structured) => `Created the post ${String(structured.id)} (${String(structured.status)}).`,
    run: async ({ deps, caller }, input, requestKey) => {
      const post = await createPost(deps, caller, input as Schemas['CreatePostRequest'], requestKey);
      return { status: 201, body: await presentCreatedPost(post, deps.storage), location: `/api/v1/posts/${post.id}` };
    },
  };
}
