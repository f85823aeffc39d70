import { publishToSocial } from '../../../domain/publishing/publish-to-social.ts';
import { presentPublishTarget } from '../../presenters/publish-target.ts';
import type { Schemas } from '../../schemas.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, itemsSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { withIdempotencyKey } from './keyed-input.ts';

export function publishPostTool(spec: ToolSpec): McpTool {
  return {
    name: 'publish_post',
    title: 'Publish a post to social connections',
    description:
      'Publishes the post to each connection in `connectionIds`, now or at `scheduledAt` (future, UTC) (POST /api/v1/posts/{id}/publish-social). Takes an idempotencyKey, always: a retry with the same key gets the first publication, never a second post. Call preview_publication first. Answers one publish target per connection; a target still `Pending`/`Publishing` goes on in the background (get_post follows it), a `Failed` one is explained by explain_failed_target.',
    // Posts to the outside world; a retry under the same key publishes once.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    changes: true,
    operationId: 'publishPostToSocial',
    keyRequired: true,
    inputSchema: withIdempotencyKey(spec, inputSchemaOf(spec.operation('publishPostToSocial'), { omit: ['dryRun'] }), true),
    outputSchema: itemsSchemaOf({ type: 'array', items: spec.schema('PublishTarget') }, 'One publish target per connection (REST answers the array).'),
    // The REST request it stands for, as REST's validator completes it (dryRun's default), so the key's hash matches.
    operation: ({ id, ...body }) => ({ method: 'POST', path: `/api/v1/posts/${String(id)}/publish-social`, body: { ...body, dryRun: false } }),
    summary: (structured) =>
      `Publish targets: ${(structured.items as Schemas['PublishTarget'][]).map((target) => `${target.platform} ${target.status}`).join(', ')}.`,
    run: async ({ deps, caller }, { id, ...request }, requestKey) => {
      const { targets, completed } = await publishToSocial(deps, caller, id as string, request as Schemas['PublishPostToSocialRequest'], requestKey);
      return {
        status: completed ? 200 : 202,
        body: targets.map(presentPublishTarget),
        ...(!completed && { location: `/api/v1/posts/${String(id)}/publish-targets` }),
      };
    },
  };
}
