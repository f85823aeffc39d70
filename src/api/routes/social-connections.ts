import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { createSocialConnection } from '../../domain/social-connections/create-social-connection.ts';
import { listConnectionDestinations } from '../../domain/social-connections/connection-destinations.ts';
import { updateSocialConnection } from '../../domain/social-connections/update-social-connection.ts';
import { deleteSocialConnection } from '../../domain/social-connections/delete-social-connection.ts';
import { findSocialConnection } from '../../domain/find-in-workspace.ts';
import { listSocialConnections } from '../../domain/social-connections/list-social-connections.ts';
import { startAuthorization } from '../../domain/social-connections/start-authorization.ts';
import { verifySocialConnection } from '../../domain/social-connections/verify-social-connection.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { presentSocialConnection } from '../presenters/social-connection.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import type { Schemas } from '../schemas.ts';

export function socialConnectionRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/social-connections', async (req, res) => {
    const page = await listSocialConnections(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentSocialConnection));
  });

  router.post('/social-connections', async (req, res) => {
    const connection = await createSocialConnection(deps, callerOf(res), req.body as Schemas['CreateSocialConnectionRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/social-connections/${connection.id}`).json(presentSocialConnection(connection));
  });

  router.post('/social-connections/authorizations', async (req, res) => {
    const started = await startAuthorization(deps, callerOf(res), req.body as Schemas['CreateOAuthAuthorizationRequest'], requestKeyOf(res));
    res.status(201).json({ authorizationUrl: started.authorizationUrl, state: started.state, expiresAt: started.expiresAt.toISOString() });
  });

  router.post('/social-connections/:id/verify', async (req, res) => {
    res.json(presentSocialConnection(await verifySocialConnection(deps, callerOf(res), req.params.id)));
  });

  router.get('/social-connections/:id', async (req, res) => {
    res.json(presentSocialConnection(await findSocialConnection(deps.orm.em.fork(), callerOf(res).workspaceId, req.params.id)));
  });

  router.get('/social-connections/:id/destinations', async (req, res) => {
    res.json(await listConnectionDestinations(deps, callerOf(res), req.params.id));
  });

  router.patch('/social-connections/:id', async (req, res) => {
    const { destination, settings } = req.body as Schemas['UpdateSocialConnectionRequest'];
    res.json(presentSocialConnection(await updateSocialConnection(deps, callerOf(res), req.params.id, { destination, settings })));
  });

  router.delete('/social-connections/:id', async (req, res) => {
    await deleteSocialConnection(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  return router;
}
