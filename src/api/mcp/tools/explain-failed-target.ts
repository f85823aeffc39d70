import { explainFailedTarget } from '../../../domain/publishing/explain-failed-target.ts';
import { presentPublishTarget } from '../../presenters/publish-target.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, type JsonSchema, type ToolSpec } from '../tool-schemas.ts';
import { readsWorkspace } from './paged-list.ts';

export function explainFailedTargetTool(spec: ToolSpec): McpTool {
  const post = inputSchemaOf(spec.operation('listPublishTargets'));
  const target = spec.schema('PublishTarget');
  const targetId = (target.properties as Record<string, JsonSchema>).id!;
  return {
    name: 'explain_failed_target',
    title: 'Explain a failed publish target',
    description:
      "Says in plain words why one of a post's publish targets failed (or that it did not) and what to do next, from its attempts' recorded outcomes and reasons and its connection's status. `id` is the post's, `targetId` one of its targets' (get_post lists them).",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: {
      ...post,
      properties: { ...(post.properties as object), targetId: { ...targetId, description: "The publish target's id." } },
      required: ['id', 'targetId'],
    },
    outputSchema: {
      type: 'object',
      required: ['failed', 'whatHappened', 'whatToDo', 'connectionStatus', 'target'],
      properties: {
        failed: { type: 'boolean', description: 'Whether the target failed.' },
        whatHappened: { type: 'string' },
        whatToDo: { type: 'string', description: 'The next step.' },
        connectionStatus: { type: ['string', 'null'], description: "The connection's status now; null once it is deleted." },
        target,
      },
    },
    summary: (structured) => `${String(structured.whatHappened)} Next: ${String(structured.whatToDo)}`,
    run: async ({ deps, caller }, input) => {
      const explained = await explainFailedTarget(deps, caller, input.id as string, input.targetId as string);
      const { failed, whatHappened, whatToDo, connectionStatus } = explained;
      return { status: 200, body: { failed, whatHappened, whatToDo, connectionStatus, target: presentPublishTarget(explained.target) } };
    },
  };
}
