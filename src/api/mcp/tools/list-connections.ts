import { listSocialConnections } from '../../../domain/social-connections/list-social-connections.ts';
import { presentSocialConnection } from '../../presenters/social-connection.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { counted, pagedAnswer, pagedSchema, pageOf, readsWorkspace } from './paged-list.ts';

export function listConnectionsTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listSocialConnections');
  return {
    name: 'list_connections',
    title: 'List the social connections',
    description:
      "The workspace's connected accounts (GET /api/v1/social-connections), newest first: their ids are what preview_publication and publish_post take as `connectionIds`. A connection whose status is `needs_reauth` must be connected again before publishing to it.",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: inputSchemaOf(operation),
    outputSchema: pagedSchema(responseSchemaOf(operation)),
    summary: counted('connection'),
    run: async ({ deps, caller }, input) => {
      const page = await listSocialConnections(deps, caller, pageOf(input));
      return pagedAnswer(page, page.items.map(presentSocialConnection));
    },
  };
}
