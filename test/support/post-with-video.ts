import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { VideoJob } from '../../src/adapters/database/entities/video-job.ts';
import type { TestApp } from './test-app.ts';
import type { TestWorkspace } from './workspaces.ts';

/**
 * A 9:16 post with a generated image and a finished video of these bytes (as a video job leaves it, without encoding
 * one), made through the API in the project; its id.
 */
export async function postWithVideo(
  app: TestApp,
  workspace: TestWorkspace,
  input: { projectId: string; title: string; bytes: Buffer; durationMs: number },
): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title: input.title, prompt: 'Boats at night', projectId: input.projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`, { format: '9:16' })).status).toBe(200);
  const videoKey = `workspaces/${workspace.id}/posts/${id}/video-${randomUUID()}.mp4`;
  await app.storage.put(videoKey, input.bytes, 'video/mp4');
  const em = app.api.services.orm.em.fork();
  em.create(VideoJob, {
    workspaceId: workspace.id,
    postId: id,
    format: '9:16',
    videoKey,
    videoBytes: input.bytes.length,
    durationMs: input.durationMs,
    status: 'done',
    progress: 100,
    completedAt: new Date(),
  });
  await em.flush();
  return id;
}
