import type { WorkspaceOverview } from '../../domain/workspaces/get-workspace.ts';
import type { Schemas } from '../schemas.ts';

export function presentWorkspace({ workspace, limits, features, usage }: WorkspaceOverview): Schemas['Workspace'] {
  return { id: workspace.id, name: workspace.name, plan: workspace.plan, limits, usage, features, oauthRedirectUris: workspace.oauthRedirectUris };
}
