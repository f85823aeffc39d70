import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSocialConnection } from '../find-in-workspace.ts';

/**
 * Forgets the account and its credentials. Publish targets keep their history; pending ones to it will fail. An
 * OAuth connection's keep-alive workflow is ended; should Temporal not answer, it ends by itself when it next wakes
 * and finds the connection gone (within the token's lifetime), so the delete does not wait for Temporal.
 */
export async function deleteSocialConnection(deps: Deps, caller: Caller, id: string): Promise<void> {
  const hadExpiry = await deps.orm.em.fork().transactional(async (em) => {
    const connection = await findSocialConnection(em, caller.workspaceId, id);
    em.remove(connection);
    return connection.expiresAt !== null && connection.expiresAt !== undefined;
  });
  if (!hadExpiry) return;
  try {
    await inTemporal(deps.temporal, 'end the connection keep-alive', () =>
      deps.temporal.workflow.getHandle(workflowIds.socialConnection(id)).terminate('the social connection was deleted'),
    );
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError))
      deps.logger.warn({ connectionId: id, err: error }, 'the connection keep-alive workflow was not ended; it ends when it next wakes');
  }
}
