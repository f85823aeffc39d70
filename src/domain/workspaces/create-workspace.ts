import { Workspace, type Plan } from '../../adapters/database/entities/workspace.ts';
import type { Database } from '../../adapters/database/orm.ts';
import { issueApiKey } from '../api-keys/issue-api-key.ts';

/** Operator action (admin CLI, dev stack): a workspace with its first API key, whatever the plan. */
export async function createWorkspace(orm: Database, input: { name: string; plan: Plan; keyName?: string }): Promise<{ workspace: Workspace; apiKey: string }> {
  return orm.em.fork().transactional((em) => {
    const workspace = em.create(Workspace, { name: input.name, plan: input.plan });
    const { key } = issueApiKey(em, { workspaceId: workspace.id, name: input.keyName ?? 'Default key' });
    return Promise.resolve({ workspace, apiKey: key });
  });
}
