import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { getVideoJob } from '../../domain/video/get-video-job.ts';
import { presignPostVideo } from '../../domain/video/presign-post-video.ts';
import { callerOf } from '../caller-of.ts';
import { presentVideoJob, presentVideoUrl } from '../presenters/video.ts';

/** Polling video jobs (started from the dashboard) and fetching a post's video. */
export function videoRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/video/jobs/:jobId', async (req, res) => {
    res.json(presentVideoJob(await getVideoJob(deps, callerOf(res), req.params.jobId)));
  });

  router.get('/video/presign/:postId', async (req, res) => {
    res.json(presentVideoUrl(await presignPostVideo(deps, callerOf(res), req.params.postId)));
  });

  return router;
}
