import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { listPublishTargets } from '../../domain/publishing/list-publish-targets.ts';
import { previewSocialPublication } from '../../domain/publishing/preview-social-publication.ts';
import { publishPost } from '../../domain/publishing/publish-post.ts';
import { publishToSocial } from '../../domain/publishing/publish-to-social.ts';
import { schedulePost } from '../../domain/publishing/schedule-post.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { presentConnectionPreview } from '../presenters/connection-preview.ts';
import { presentPublishedPost, presentPublishTarget, presentScheduledPost } from '../presenters/publish-target.ts';
import type { Schemas } from '../schemas.ts';

/** Publish now, schedule, publish to social connections, and the publish targets. */
export function postPublishingRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/posts/:id/publish', async (req, res) => {
    const { post, completed } = await publishPost(deps, callerOf(res), req.params.id, requestKeyOf(res));
    if (!completed) res.status(202).location(`/api/v1/posts/${post.id}`);
    res.json(presentPublishedPost(post));
  });

  router.post('/posts/:id/schedule', async (req, res) => {
    const { scheduledAt } = req.body as Schemas['SchedulePostRequest'];
    const post = await schedulePost(deps, callerOf(res), req.params.id, scheduledAt, requestKeyOf(res));
    res.json(presentScheduledPost(post, scheduledAt));
  });

  router.post('/posts/:id/publish-social', async (req, res) => {
    const request = req.body as Schemas['PublishPostToSocialRequest'];
    if (request.dryRun) {
      res.json((await previewSocialPublication(deps, callerOf(res), req.params.id, request)).map(presentConnectionPreview));
      return;
    }
    const { targets, completed } = await publishToSocial(deps, callerOf(res), req.params.id, request, requestKeyOf(res));
    if (!completed) res.status(202).location(`/api/v1/posts/${req.params.id}/publish-targets`);
    res.json(targets.map(presentPublishTarget));
  });

  router.get('/posts/:id/publish-targets', async (req, res) => {
    res.json((await listPublishTargets(deps, callerOf(res), req.params.id)).map(presentPublishTarget));
  });

  return router;
}
