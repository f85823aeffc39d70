import { notFound } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost } from '../posts/read-post.ts';
import { latestVideoJob } from './latest-video-job.ts';

const urlTtlSeconds = 60 * 60;

/** A fresh, expiring URL of the post's latest finished video; 404 when the post has none. */
export async function presignPostVideo(deps: Deps, caller: Caller, postId: string): Promise<{ url: string; expiresAt: Date }> {
  const em = deps.orm.em.fork();
  const post = await readPost(em, caller.workspaceId, postId);
  const latest = await latestVideoJob(em, post.id);
  if (!latest?.videoKey) throw notFound(`A video of post ${post.id}`);
  const expiresAt = new Date(Date.now() + urlTtlSeconds * 1000);
  return { url: await deps.storage.signedUrl(latest.videoKey, urlTtlSeconds), expiresAt };
}
