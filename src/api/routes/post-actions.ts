import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { requestGeneration, type GenerationRequest } from '../../domain/generation/request-generation.ts';
import { requestRender } from '../../domain/generation/request-render.ts';
import { callerOf } from '../caller-of.ts';
import { postImageUrl } from '../presenters/post.ts';
import type { Schemas } from '../schemas.ts';

/** Generate and render: 200 with the outcome when the workflow finishes in time, else 202 and where to poll. */
export function postActionRoutes(deps: Deps): Router {
  const router = Router();

  router.post('/posts/:id/generate', async (req, res) => {
    const outcome = await requestGeneration(deps, callerOf(res), req.params.id, (req.body ?? {}) as GenerationRequest);
    const { post } = outcome;
    const body: Schemas['GeneratePostResponse'] = {
      post: { id: post.id, status: post.status, imageUrl: await postImageUrl(post, deps.storage), hasVideo: post.hasVideo, updatedAt: post.updatedAt.toISOString() },
      respond:
        outcome.state === 'completed'
          ? outcome.result.respond
          : `Generation is still running. Poll GET /api/v1/posts/${post.id} until updatedAt changes, or status becomes failed (see failureReason).`,
    };
    if (outcome.state === 'running') res.status(202).location(`/api/v1/posts/${post.id}`);
    res.json(body);
  });

  router.post('/posts/:id/render', async (req, res) => {
    const outcome = await requestRender(deps, callerOf(res), req.params.id);
    const { post } = outcome;
    const body: Schemas['RenderPostResponse'] = {
      id: post.id,
      imageUrl: (await postImageUrl(post, deps.storage)) ?? '',
      status: post.status,
      notes: outcome.state === 'completed' ? outcome.result.notes : [],
    };
    if (outcome.state === 'running') res.status(202).location(`/api/v1/posts/${post.id}`);
    res.json(body);
  });

  return router;
}
