import type { PostStatus } from '../../../adapters/database/entities/post.ts';
import { listPosts, listProjectPosts } from '../../../domain/posts/list-posts.ts';
import { presentPostListItem } from '../../presenters/post.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type JsonSchema, type ToolSpec } from '../tool-schemas.ts';
import { counted, pagedAnswer, pagedSchema, pageOf, readsWorkspace } from './paged-list.ts';

export function listPostsTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listPosts');
  // The project's list (GET /posts/project/{projectId}) takes the same query: one tool, with an optional project.
  const projectId = (inputSchemaOf(spec.operation('listProjectPosts')).properties as Record<string, JsonSchema>).projectId!;
  const input = inputSchemaOf(operation);
  return {
    name: 'list_posts',
    title: 'List posts',
    description:
      "The workspace's posts (GET /api/v1/posts), or one project's (GET /api/v1/posts/project/{projectId}) with `projectId`, newest first, optionally of one `status`. Pass `nextCursor` back as `cursor` for the next page.",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: { ...input, properties: { projectId: { ...projectId, description: 'Only the posts of this project.' }, ...(input.properties as object) } },
    outputSchema: pagedSchema(responseSchemaOf(operation), { cursor: true }),
    summary: counted('post'),
    run: async ({ deps, caller }, input) => {
      const query = {
        ...pageOf(input),
        status: input.status as PostStatus | undefined,
        cursor: input.cursor as string | undefined,
      };
      const page = typeof input.projectId === 'string' ? await listProjectPosts(deps, caller, input.projectId, query) : await listPosts(deps, caller, query);
      const items = await Promise.all(page.items.map((post) => presentPostListItem(post, deps.storage)));
      return pagedAnswer(page, items, { cursor: true });
    },
  };
}
