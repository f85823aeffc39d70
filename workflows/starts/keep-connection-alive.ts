import { searchAttributes } from '../../src/adapters/temporal/search-attributes.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import type { KeepConnectionAliveInput } from '../contracts/keep-connection-alive.ts';

/**
 * How an OAuth connection's keep-alive workflow is started (by the callback that made the connection, and again by
 * a verify that finds none running): one run per connection, found in the Temporal UI by the connection's id.
 */
export function keepConnectionAliveStart(connection: { id: string; workspaceId: string; platform: string; accountName: string }) {
  return {
    workflowId: workflowIds.socialConnection(connection.id),
    args: [{ connectionId: connection.id }] as [KeepConnectionAliveInput],
    staticSummary: `Keep the ${connection.platform} connection ${connection.accountName} alive`,
    typedSearchAttributes: [{ key: searchAttributes.workspaceId, value: connection.workspaceId }],
  };
}
