import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listPostVersions } from '../../domain/versions/list-post-versions.ts';
import { restorePostVersion } from '../../domain/versions/restore-post-version.ts';
import { callerOf } from '../caller-of.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import { postImageUrl } from '../presenters/post.ts';
import type { Schemas } from '../schemas.ts';

export function postVersionRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/posts/:id/versions', async (req, res) => {
    const page = await listPostVersions(deps, callerOf(res), req.params.id, pageRequestOf(req));
    const body: Schemas['PostVersion'][] = await Promise.all(
      page.items.map(async (version) => ({
        id: version.id,
        versionNumber: version.versionNumber,
        label: version.label,
        kind: version.kind,
        imageUrl: await deps.storage.signedUrl(version.imageKey),
        createdAt: version.createdAt.toISOString(),
      })),
    );
    sendPage(req, res, page, body);
  });

  router.post('/posts/:id/versions/:versionId/restore', async (req, res) => {
    const post = await restorePostVersion(deps, callerOf(res), req.params.id, req.params.versionId);
    const body: Schemas['RestorePostVersionResponse'] = {
      id: post.id,
      status: post.status,
      imageUrl: (await postImageUrl(post, deps.storage)) ?? '',
      updatedAt: post.updatedAt.toISOString(),
    };
    res.json(body);
  });

  return router;
}
