import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { getVideoJob } from '../../domain/video/get-video-job.ts';
import { presignPostVideo } from '../../domain/video/presign-post-video.ts';
import { callerOf } from '../caller-of.ts';
import { presentVideoJob } from '../presenters/video-job.ts';
import type { Schemas } from '../schemas.ts';

/** Polling video jobs (started from the dashboard) and fetching a post's video. */
export function videoRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/video/jobs/:jobId', async (req, res) => {
    res.json(presentVideoJob(await getVideoJob(deps, callerOf(res), req.params.jobId)));
  });

  router.get('/video/presign/:postId', async (req, res) => {
    const { url, expiresAt } = await presignPostVideo(deps, callerOf(res), req.params.postId);
    const body: Schemas['VideoPresignedUrl'] = { url, expiresAt: expiresAt.toISOString() };
    res.json(body);
  });

  return router;
}
