import { Router } from 'express';
import { createBrandKit } from '../../domain/brand-kits/create-brand-kit.ts';
import { deleteBrandKit } from '../../domain/brand-kits/delete-brand-kit.ts';
import { findBrandKit } from '../../domain/find-in-workspace.ts';
import { listBrandKits } from '../../domain/brand-kits/list-brand-kits.ts';
import { updateBrandKit } from '../../domain/brand-kits/update-brand-kit.ts';
import type { Deps } from '../../domain/deps.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentBrandKit } from '../presenters/brand-kit.ts';
import type { Schemas } from '../schemas.ts';

export function brandKitRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/brandkits', async (req, res) => {
    const page = await listBrandKits(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentBrandKit));
  });

  router.post('/brandkits', async (req, res) => {
    const brandKit = await createBrandKit(deps, callerOf(res), req.body as Schemas['CreateBrandKitRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/brandkits/${brandKit.id}`).json(presentBrandKit(brandKit));
  });

  router.get('/brandkits/:id', async (req, res) => {
    res.json(presentBrandKit(await findBrandKit(deps.orm.em.fork(), callerOf(res).workspaceId, req.params.id)));
  });

  router.put('/brandkits/:id', async (req, res) => {
    const input = req.body as Schemas['UpdateBrandKitRequest'];
    res.json(presentBrandKit(await updateBrandKit(deps, callerOf(res), req.params.id, input)));
  });

  router.delete('/brandkits/:id', async (req, res) => {
    await deleteBrandKit(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  return router;
}
