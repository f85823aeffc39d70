import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listPostVersions } from '../../domain/versions/list-post-versions.ts';
import { restorePostVersion } from '../../domain/versions/restore-post-version.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { presentPostVersion, presentRestoredPost } from '../presenters/post-version.ts';

export function postVersionRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/posts/:id/versions', async (req, res) => {
    const page = await listPostVersions(deps, callerOf(res), req.params.id, pageRequestOf(req));
    sendPage(req, res, page, await Promise.all(page.items.map((version) => presentPostVersion(version, deps.storage))));
  });

  router.post('/posts/:id/versions/:versionId/restore', async (req, res) => {
    const post = await restorePostVersion(deps, callerOf(res), req.params.id, req.params.versionId, requestKeyOf(res));
    res.json(await presentRestoredPost(post, deps.storage));
  });

  return router;
}
