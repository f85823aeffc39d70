import { expect } from 'vitest';
import { VideoJob } from '../../src/adapters/database/entities/video-job.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import { objectKeys } from '../../src/adapters/object-storage/object-keys.ts';
import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';
import { eventually } from './eventually.ts';
import type { TestApp } from './test-app.ts';
import type { TestWorkspace } from './workspaces.ts';

/** A finished 9:16 video of the post with these bytes, stored and recorded as a video job leaves it (without encoding one). */
export async function storeFinishedVideo(
  orm: Database,
  storage: ObjectStorage,
  post: { id: string; workspaceId: string },
  video: { bytes: Buffer; durationMs: number },
): Promise<void> {
  const jobId = newId();
  const videoKey = objectKeys.postVideo(post.workspaceId, post.id, jobId);
  await storage.put(videoKey, video.bytes, 'video/mp4');
  const em = orm.em.fork();
  em.create(VideoJob, {
    id: jobId,
    workspaceId: post.workspaceId,
    postId: post.id,
    format: '9:16',
    videoKey,
    videoBytes: video.bytes.length,
    durationMs: video.durationMs,
    status: 'done',
    progress: 100,
    completedAt: new Date(),
  });
  await em.flush();
}

/** A 9:16 post with a generated image and a finished video of these bytes, made through the API in the project; its id. */
export async function postWithVideo(
  app: TestApp,
  workspace: TestWorkspace,
  input: { projectId: string; title: string; bytes: Buffer; durationMs: number },
): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title: input.title, prompt: 'Boats at night', projectId: input.projectId })).body.id;
  // 202 when the generation outlasts the api's wait (API_WAIT_SECONDS, which some files shorten): it goes on, and the
  // image is waited for here.
  expect([200, 202]).toContain((await workspace.client.post(`/posts/${id}/generate`, { format: '9:16' })).status);
  await eventually(async () => expect((await workspace.client.get<{ imageUrl: string | null }>(`/posts/${id}`)).body.imageUrl).toEqual(expect.any(String)));
  await storeFinishedVideo(app.api.services.orm, app.storage, { id, workspaceId: workspace.id }, input);
  return id;
}
