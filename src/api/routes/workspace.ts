import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { getWorkspace } from '../../domain/workspaces/get-workspace.ts';
import { callerOf } from '../caller-of.ts';
import type { Schemas } from '../schemas.ts';

export function workspaceRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/workspace', async (_req, res) => {
    const { workspace, limits, features, usage } = await getWorkspace(deps, callerOf(res));
    const body: Schemas['Workspace'] = { id: workspace.id, name: workspace.name, plan: workspace.plan, limits, usage, features };
    res.json(body);
  });

  return router;
}
