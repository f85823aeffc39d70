import type { requestGeneration } from '../../domain/generation/request-generation.ts';
import type { requestRender } from '../../domain/generation/request-render.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';
import type { Schemas } from '../schemas.ts';
import { postImageUrl } from './post.ts';

type Generation = Awaited<ReturnType<typeof requestGeneration>>;
type Render = Awaited<ReturnType<typeof requestRender>>;

/** A generation's answer: what the image work said, or, while it runs, how to follow it. */
export async function presentGeneration(outcome: Generation, storage: ObjectStorage): Promise<Schemas['GeneratePostResponse']> {
  const { post } = outcome;
  return {
    post: { id: post.id, status: post.status, imageUrl: await postImageUrl(post, storage), hasVideo: post.hasVideo, updatedAt: post.updatedAt.toISOString() },
    respond:
      outcome.state === 'completed'
        ? outcome.result.respond
        : `Generation is still running. Poll GET /api/v1/posts/${post.id} until updatedAt changes, or status becomes failed (see failureReason).`,
  };
}

/** A render's answer: the post's image (empty while the render runs) and the render's notes. */
export async function presentRender(outcome: Render, storage: ObjectStorage): Promise<Schemas['RenderPostResponse']> {
  const { post } = outcome;
  return {
    id: post.id,
    imageUrl: (await postImageUrl(post, storage)) ?? '',
    status: post.status,
    notes: outcome.state === 'completed' ? outcome.result.notes : [],
  };
}
