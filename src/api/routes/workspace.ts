import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { getWorkspace } from '../../domain/workspaces/get-workspace.ts';
import { callerOf } from '../caller-of.ts';
import { presentWorkspace } from '../presenters/workspace.ts';

export function workspaceRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/workspace', async (_req, res) => {
    res.json(presentWorkspace(await getWorkspace(deps, callerOf(res))));
  });

  return router;
}
