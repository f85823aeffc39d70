import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { downloadPostImage, type DownloadFormat } from '../../domain/posts/download-post-image.ts';
import { callerOf } from '../caller-of.ts';

export function postDownloadRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/posts/:id/download', async (req, res) => {
    const file = await downloadPostImage(deps, callerOf(res), req.params.id, req.query.format as DownloadFormat);
    res.set({
      'Content-Type': file.contentType,
      'Content-Disposition': `attachment; filename="${file.fileName}"`,
      'Cache-Control': 'private, no-store',
    });
    res.send(file.bytes);
  });

  return router;
}
