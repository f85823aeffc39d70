import { previewSocialPublication } from '../../../domain/publishing/preview-social-publication.ts';
import { presentConnectionPreview } from '../../presenters/connection-preview.ts';
import type { Schemas } from '../../schemas.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, itemsSchemaOf, type ToolSpec } from '../tool-schemas.ts';

export function previewPublicationTool(spec: ToolSpec): McpTool {
  return {
    name: 'preview_publication',
    title: 'Preview a publication (dry run)',
    description:
      'What publish_post would send to each connection, without sending or recording anything (POST /api/v1/posts/{id}/publish-social with dryRun: true): the exact text after shortening, its count, the image as sent, and the `problems` the publication would meet (text_too_long, image_too_large, connection_needs_reauth, destination_needed, limit_reached, ...). Call it before publish_post and fix what it reports.',
    // It asks the platforms for the account's limits, but posts nothing.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    changes: false,
    operationId: 'publishPostToSocial',
    inputSchema: inputSchemaOf(spec.operation('publishPostToSocial'), { omit: ['dryRun'] }),
    outputSchema: itemsSchemaOf({ type: 'array', items: spec.schema('PublishPreview') }, 'One preview per connection, in the order of `connectionIds`.'),
    summary: (structured) => {
      const previews = structured.items as Schemas['PublishPreview'][];
      const problems = previews.flatMap((preview) => preview.problems.map((problem) => `${preview.platform}: ${problem.code}`));
      return `${previews.length} connection(s) previewed; ${problems.length === 0 ? 'no problems' : `problems: ${problems.join(', ')}`}.`;
    },
    run: async ({ deps, caller }, { id, ...request }) => {
      const previews = await previewSocialPublication(deps, caller, id as string, request as Schemas['PublishPostToSocialRequest']);
      return { status: 200, body: previews.map(presentConnectionPreview) };
    },
  };
}
