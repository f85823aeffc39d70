import { readPostWithTargets } from '../../../domain/publishing/list-publish-targets.ts';
import { presentPost } from '../../presenters/post.ts';
import { presentPublishTarget } from '../../presenters/publish-target.ts';
import type { Schemas } from '../../schemas.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { readsWorkspace } from './paged-list.ts';

export function getPostTool(spec: ToolSpec): McpTool {
  return {
    name: 'get_post',
    title: 'Get a post',
    description:
      "A post (GET /api/v1/posts/{id}) with its publish targets and each target's attempts (GET /api/v1/posts/{id}/publish-targets), newest target first. A target that failed: explain_failed_target says why and what to do.",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: inputSchemaOf(spec.operation('getPost')),
    outputSchema: {
      type: 'object',
      description: 'The answers of GET /posts/{id} (`post`) and GET /posts/{id}/publish-targets (`publishTargets`).',
      required: ['post', 'publishTargets'],
      properties: { post: responseSchemaOf(spec.operation('getPost')), publishTargets: responseSchemaOf(spec.operation('listPublishTargets')) },
    },
    summary: (structured) => {
      const { post, publishTargets } = structured as { post: Schemas['Post']; publishTargets: Schemas['PublishTarget'][] };
      const targets = publishTargets.map((target) => `${target.platform} ${target.status}`).join(', ');
      return `Post ${post.id} "${post.title}" is ${post.status}; ${publishTargets.length === 0 ? 'no publish targets' : `targets: ${targets}`}.`;
    },
    run: async ({ deps, caller }, input) => {
      const id = input.id as string;
      const { post, targets } = await readPostWithTargets(deps, caller, id);
      return { status: 200, body: { post: await presentPost(post, deps.storage), publishTargets: targets.map(presentPublishTarget) } };
    },
  };
}
