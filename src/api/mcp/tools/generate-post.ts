import { requestGeneration } from '../../../domain/generation/request-generation.ts';
import { presentGeneration } from '../../presenters/post-action.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { withIdempotencyKey } from './keyed-input.ts';

export function generatePostTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('generatePost');
  return {
    name: 'generate_post',
    title: "Generate a post's image",
    description:
      "Generates the post's image from its prompt (or `prompt`) in a `format` (POST /api/v1/posts/{id}/generate), as a new version; the post becomes a draft. Waits for the image; if it takes longer, the post's status says when it is done (get_post). Counts against the plan's generation budget.",
    // Generating again draws a new image: not the same effect twice without the key.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    changes: true,
    operationId: 'generatePost',
    keyRequired: false,
    inputSchema: withIdempotencyKey(spec, inputSchemaOf(operation), false),
    outputSchema: responseSchemaOf(operation),
    operation: ({ id, ...body }) => ({ method: 'POST', path: `/api/v1/posts/${String(id)}/generate`, body }),
    summary: (structured) => String(structured.respond),
    run: async ({ deps, caller }, { id, ...body }, requestKey) => {
      const outcome = await requestGeneration(deps, caller, id as string, body, requestKey);
      return {
        status: outcome.state === 'running' ? 202 : 200,
        body: await presentGeneration(outcome, deps.storage),
        ...(outcome.state === 'running' && { location: `/api/v1/posts/${outcome.post.id}` }),
      };
    },
  };
}
