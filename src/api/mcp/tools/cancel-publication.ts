import { updatePost } from '../../../domain/posts/update-post.ts';
import { presentUpdatedPost } from '../../presenters/post.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { withIdempotencyKey } from './keyed-input.ts';

export function cancelPublicationTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('updatePost');
  return {
    name: 'cancel_publication',
    title: 'Cancel a scheduled publication',
    description:
      "Cancels the post's publication planned for later, with every connection's target (PUT /api/v1/posts/{id} with scheduledAt: null): nothing is sent when its time comes. Refused (conflict) once the publication is under way.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    changes: true,
    operationId: 'updatePost',
    keyRequired: false,
    inputSchema: withIdempotencyKey(
      spec,
      inputSchemaOf(operation, { omit: ['title', 'prompt', 'status', 'scheduledAt', 'projectId', 'brandKitId', 'format'] }),
      false,
    ),
    outputSchema: responseSchemaOf(operation),
    operation: ({ id }) => ({ method: 'PUT', path: `/api/v1/posts/${String(id)}`, body: { scheduledAt: null } }),
    summary: (structured) => `The post ${String(structured.id)} is ${String(structured.status)}; its planned publication is cancelled.`,
    run: async ({ deps, caller }, { id }, _requestKey) => ({
      status: 200,
      body: presentUpdatedPost(await updatePost(deps, caller, id as string, { scheduledAt: null })),
    }),
  };
}
