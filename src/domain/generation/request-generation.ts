import { defaultPostFormat, type PostFormat } from '../../adapters/artwork/post-formats.ts';
import { seedFromId } from '../../adapters/image-providers/seed.ts';
import { startAndWait } from '../../adapters/temporal/workflow-gateway.ts';
import type { GenerationResult } from '../../../workflows/contracts/generate-post.ts';
import { generatePost } from '../../../workflows/generate-post.ts';
import { generatePostStart } from '../../../workflows/starts/generate-post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { intendedWorkId } from '../idempotency/request-effects.ts';
import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readPost } from '../posts/read-post.ts';
import { countGenerations, monthStartOf } from '../usage/count-generations.ts';
import { requireGenerationBudget } from '../workspaces/plans.ts';
import type { ActionOutcome } from './action-outcome.ts';

export type GenerationRequest = { prompt?: string; format?: PostFormat; seed?: number };

/**
 * Starts the post's generation workflow and waits a while for it. Without a prompt the post's own prompt is used;
 * without a seed a fresh one is drawn, so generating again gives a new image (and the seed is kept in the version).
 * `requestKey` names the request's Idempotency-Key (requestFingerprint): a retry joins the generation the first
 * send started while it is the post's latest (startAndWait); once another has run since, it runs the first send's
 * generation again, under the same id and seed, which finds the version that generation saved and asks the
 * provider nothing (intendedWorkId); one that failed answers its failure again (requireNotFailedBefore). Past the
 * plan's monthly generation budget it starts nothing (requireGenerationBudget).
 */
export async function requestGeneration(
  deps: Deps,
  caller: Caller,
  postId: string,
  request: GenerationRequest,
  requestKey?: string,
): Promise<ActionOutcome<GenerationResult>> {
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  const em = deps.orm.em.fork();
  const generationId = await intendedWorkId(em, caller.workspaceId, requestKey, 'generation');
  if (requestKey !== undefined) await requireNotFailedBefore(em, generationId);
  const monthStart = monthStartOf(new Date());
  requireGenerationBudget(caller.plan, await countGenerations(em, caller.workspaceId, monthStart), monthStart);
  const format = request.format ?? defaultPostFormat;
  const prompt = request.prompt ?? post.prompt;
  // The local renderer needs no network and answers well within a second: the workflow draws its image inside its
  // first task (a local activity). Stability AI's calls take seconds to minutes and stay an activity.
  const imageRunsLocally = deps.images.name === 'local';
  const outcome = await startAndWait(
    deps.temporal,
    generatePost,
    {
      ...generatePostStart(post, {
        generationId,
        prompt,
        promptWasNew: prompt !== post.prompt,
        format,
        seed: request.seed ?? seedFromId(generationId),
        imageRunsLocally,
      }),
      taskQueue: deps.taskQueue,
    },
    { description: `a generation of post ${post.id}`, name: 'Generation', waitMs: deps.actionWaitMs, requestKey },
  );
  return { ...outcome, post: await readPost(deps.orm.em.fork(), caller.workspaceId, postId) };
}

/**
 * A generation that failed for good recorded its `post.failed` (sourceId `generation-<id>`). Run again for its
 * request's retry it would ask the provider again and, failing again, mark the post failed over whatever image it has
 * been given since: the retry answers the failure the first send would have heard instead.
 */
async function requireNotFailedBefore(em: EntityManager, generationId: string): Promise<void> {
  const failed = await em.findOne(WorkspaceEvent, { sourceId: `generation-${generationId}`, type: 'post.failed' });
  if (!failed) return;
  const { reason } = failed.details;
  throw new AppError('generation-failed', `Generation failed: ${typeof reason === 'string' ? reason : "see the post's failureReason"}`);
}
