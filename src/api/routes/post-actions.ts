import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { requestGeneration, type GenerationRequest } from '../../domain/generation/request-generation.ts';
import { requestRender } from '../../domain/generation/request-render.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { presentGeneration, presentRender } from '../presenters/post-action.ts';

/** Generate and render: 200 with the outcome when the workflow finishes in time, else 202 and where to poll. */
export function postActionRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/posts/:id/generate', async (req, res) => {
    const outcome = await requestGeneration(deps, callerOf(res), req.params.id, (req.body ?? {}) as GenerationRequest, requestKeyOf(res));
    if (outcome.state === 'running') res.status(202).location(`/api/v1/posts/${outcome.post.id}`);
    res.json(await presentGeneration(outcome, deps.storage));
  });

  router.post('/posts/:id/render', async (req, res) => {
    const outcome = await requestRender(deps, callerOf(res), req.params.id, requestKeyOf(res));
    if (outcome.state === 'running') res.status(202).location(`/api/v1/posts/${outcome.post.id}`);
    res.json(await presentRender(outcome, deps.storage));
  });

  return router;
}
