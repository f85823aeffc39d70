import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { getWorkspace } from '../../domain/workspaces/get-workspace.ts';
import { setOAuthRedirectUris } from '../../domain/workspaces/set-oauth-redirect-uris.ts';
import { callerOf } from '../caller-of.ts';
import { presentWorkspace } from '../presenters/workspace.ts';
import type { Schemas } from '../schemas.ts';

export function workspaceRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/workspace', async (_req, res) => {
    res.json(presentWorkspace(await getWorkspace(deps, callerOf(res))));
  });

  router.patch('/workspace', async (req, res) => {
    const caller = callerOf(res);
    const body = req.body as Schemas['UpdateWorkspaceRequest'];
    if (body.oauthRedirectUris !== undefined) await setOAuthRedirectUris(deps, caller, body.oauthRedirectUris);
    res.json(presentWorkspace(await getWorkspace(deps, caller)));
  });

  return router;
}
