import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { VideoJob as VideoJobRow } from '../../src/adapters/database/entities/video-job.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { deleteWorkflowHistory, probeVideo } from '../support/videos.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// Video jobs end to end: started at the dashboard's endpoint, made by the real `generateVideo` workflow (ffmpeg)
// on the Temporal dev server, polled and fetched through the public API (responses validated against openapi.yaml).

type VideoJob = Schemas['VideoJob'];
type Problem = Schemas['Problem'];

let app: TestApp;
let workspace: TestWorkspace;
let other: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ project: 'Videos' }));
  other = await createTestWorkspace(app, 'growth', 'another workspace');
});
afterAll(() => app?.stop());

const unknownId = '018f0000-0000-7000-8000-000000000000';

async function generatedPost(format: '1:1' | '9:16' | '16:9' = '9:16'): Promise<string> {
  const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harvest festival', prompt: 'Lanterns over a field', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${postId}/generate`, { format })).status).toBe(200);
  return postId;
}

/** A generated post whose stored image is then replaced by bytes ffmpeg cannot read: its video job fails at once. */
async function postWithUnreadableImage(): Promise<string> {
  const postId = await generatedPost('1:1');
  const post = await app.api.services.orm.em.fork().findOneOrFail(Post, postId);
  await app.storage.put(post.artworkKey!, Buffer.from('these bytes are not a picture'), 'image/png');
  return postId;
}

function startVideo(postId: string, key: string | null = workspace.key) {
  return fetch(`${app.url}/dashboard/api/posts/${postId}/video`, { method: 'POST', headers: key ? { authorization: `Bearer ${key}` } : {} });
}

async function startedJob(postId: string): Promise<string> {
  const response = await startVideo(postId);
  expect(response.status).toBe(202);
  const { jobId } = (await response.json()) as { jobId: string };
  expect(response.headers.get('location')).toBe(`/api/v1/video/jobs/${jobId}`);
  return jobId;
}

// A job is waited for up to 90 s (pollUntilEnded): on a machine busy with the rest of the suite an encode can take
// longer than the default test timeout, so the tests that wait for one allow as long as their wait.
const videoTestTimeout = { timeout: 120_000 };

/** Cancels the job's workflow and waits for the job to end; its final status. */
async function cancelled(jobId: string): Promise<string> {
  await app.api.services.temporal.workflow.getHandle(workflowIds.videoJob(jobId)).cancel();
  return (await pollUntilEnded(jobId)).final.status;
}

/** Polls the job until it ends, keeping every state seen on the way. */
async function pollUntilEnded(jobId: string): Promise<{ final: VideoJob; seen: VideoJob[] }> {
  const seen: VideoJob[] = [];
  const final = await eventually(async () => {
    const response = await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`);
    expect(response.status).toBe(200);
    seen.push(response.body);
    expect(['done', 'failed', 'cancelled']).toContain(response.body.status);
    return response.body;
  }, 90_000);
  return { final, seen };
}

describe('a video job', videoTestTimeout, () => {
  it('when started for a generated 9:16 post, then progress shows while it runs and a 1080×1920 H.264 faststart MP4 is attached', async () => {
    const postId = await generatedPost('9:16');
    const jobId = await startedJob(postId);
    const { final, seen } = await pollUntilEnded(jobId);

    expect(final).toEqual({
      jobId,
      status: 'done',
      postId,
      videoUrl: expect.any(String),
      message: 'Done: a 6-second 1080×1920 video.',
      error: null,
      progress: 100,
      completedAt: expect.any(String),
    });
    expect(seen.some((state) => state.status === 'running' && /^Encoding the video: \d+%$/.test(state.message))).toBe(true);
    for (const state of seen) expect(['queued', 'running', 'done']).toContain(state.status);
    const progress = seen.map((state) => state.progress);
    for (const [index, value] of progress.entries()) {
      expect(Number.isInteger(value) && value >= 0 && value <= 100).toBe(true);
      if (index > 0) expect(value).toBeGreaterThanOrEqual(progress[index - 1]!);
    }
    for (const state of seen.filter(({ message }) => message.startsWith('Encoding'))) expect(state.message).toBe(`Encoding the video: ${state.progress}%`);

    const download = await fetch(final.videoUrl!);
    expect(download.headers.get('content-type')).toBe('video/mp4');
    const facts = probeVideo(Buffer.from(await download.arrayBuffer()));
    expect(facts).toMatchObject({ codec: 'h264', profile: 'High', pixelFormat: 'yuv420p', width: 1080, height: 1920, fps: 30, faststart: true });
    expect(facts.seconds).toBeGreaterThanOrEqual(5);
    expect(facts.seconds).toBeLessThanOrEqual(10);

    expect((await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body.hasVideo).toBe(true);
    const usage = (await workspace.client.get<Schemas['UsageActivity']>('/usage/activity')).body.activity;
    expect(usage.filter((item) => item.type === 'VideoGeneration')).toEqual([
      expect.objectContaining({ typeLabel: 'Video generation', description: expect.stringContaining('9:16 video of "Harvest festival"') }),
    ]);

    const presigned = await workspace.client.get<Schemas['VideoPresignedUrl']>(`/video/presign/${postId}`);
    expect(presigned.status).toBe(200);
    expect(Date.parse(presigned.body.expiresAt)).toBeGreaterThan(Date.now());
    const again = await fetch(presigned.body.url);
    expect(again.status).toBe(200);
    expect(probeVideo(Buffer.from(await again.arrayBuffer()))).toMatchObject({ width: 1080, height: 1920 });
  });

  it("when the post image cannot be read by ffmpeg, then the job fails with our reason in error (never ffmpeg's output) and the post gets no video", async () => {
    const postId = await postWithUnreadableImage();

    const { final } = await pollUntilEnded(await startedJob(postId));
    expect(final).toMatchObject({ status: 'failed', postId, videoUrl: null, message: 'The video could not be made.' });
    expect(final.error).toBe("The video could not be encoded from the post's image; generate or render the image again, then start a new video.");
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body.hasVideo).toBe(false);
    expect((await workspace.client.get<Problem>(`/video/presign/${postId}`)).status).toBe(404);
  });

  it('when a second video is started while one is being made, then it answers 409 naming the running job, and once it ended another can start', async () => {
    const postId = await generatedPost('16:9');
    const jobId = await startedJob(postId);
    const second = await startVideo(postId);
    expect(second.status).toBe(409);
    expect(((await second.json()) as Problem).detail).toContain(jobId);
    // Ended by cancelling rather than by encoding to the end: the first test waits for a whole encode already.
    expect(await cancelled(jobId)).toBe('cancelled');
    const next = await startedJob(postId);
    expect(next).not.toBe(jobId);
    expect(await cancelled(next)).toBe('cancelled');
  });
});

describe('a video job after Temporal no longer keeps its workflow', videoTestTimeout, () => {
  it(
    "when a done job's history is deleted, then it still answers done, progress 100, its completion time and a working videoUrl",
    { timeout: 120_000 },
    async () => {
      const jobId = await startedJob(await generatedPost('1:1'));
      const { final } = await pollUntilEnded(jobId);
      expect(final).toMatchObject({ status: 'done', progress: 100, completedAt: expect.any(String) });

      await deleteWorkflowHistory(app.api.services.temporal, jobId);
      const after = await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`);
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ ...final, videoUrl: expect.any(String) });
      const download = await fetch(after.body.videoUrl!);
      expect(download.status).toBe(200);
      expect(probeVideo(Buffer.from(await download.arrayBuffer()))).toMatchObject({ width: 1080, height: 1080 });
    },
  );

  it("when a failed job's history is deleted, then it still answers failed with its error and completion time", { timeout: 120_000 }, async () => {
    const postId = await postWithUnreadableImage();
    const jobId = await startedJob(postId);
    const { final } = await pollUntilEnded(jobId);
    expect(final).toMatchObject({ status: 'failed', error: expect.stringContaining('could not be encoded'), completedAt: expect.any(String), videoUrl: null });

    await deleteWorkflowHistory(app.api.services.temporal, jobId);
    const after = await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`);
    expect(after.body).toEqual(final);
    // The post is free for another video: the ended job no longer counts as being made. That one ends too before the
    // next test, which would otherwise find the plan's two videos at once taken.
    const next = await startedJob(postId);
    expect(next).not.toBe(jobId);
    expect((await pollUntilEnded(next)).final.status).toBe('failed');
  });

  it("when a job's workflow is gone but its record never said how it ended, then it answers failed, saying so", { timeout: 120_000 }, async () => {
    const jobId = await startedJob(await postWithUnreadableImage());
    await pollUntilEnded(jobId);
    await deleteWorkflowHistory(app.api.services.temporal, jobId);
    // As if the run had been terminated before it could write its end (a terminated run runs no code of ours).
    await app.api.services.orm.em.fork().nativeUpdate(VideoJobRow, jobId, { status: 'running', videoKey: null, completedAt: null, progress: 40 });

    const after = await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`);
    expect(after.body).toMatchObject({ status: 'failed', progress: 40, completedAt: null, videoUrl: null, message: 'The job ended without a video.' });
    expect(after.body.error).toContain('no longer kept by Temporal');
  });
});

describe('POST /dashboard/api/posts/{postId}/video errors', () => {
  it('when the post has no image yet, then 409 says to generate it first', async () => {
    const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Empty', prompt: 'Nothing yet', projectId })).body.id;
    const response = await startVideo(postId);
    expect(response.status).toBe(409);
    expect(((await response.json()) as Problem).detail).toContain('generate it before making a video');
  });

  it.each([
    ['no key', 401, null],
    ['a key of another workspace', 404, 'other'],
  ])('when called with %s, then it answers %i and starts nothing', async (_case, status, key) => {
    const postId = await generatedPost('1:1');
    const response = await startVideo(postId, key === 'other' ? other.key : key);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect((await workspace.client.get<Schemas['Post']>(`/posts/${postId}`)).body.hasVideo).toBe(false);
  });

  it('when the post id is not a UUID, then 400 names postId; an unknown post answers 404', async () => {
    const invalid = await startVideo('not-an-id');
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as Problem).errors).toEqual([expect.objectContaining({ location: 'path', path: 'postId' })]);
    expect((await startVideo(unknownId)).status).toBe(404);
  });
});

describe('GET /video/jobs/{jobId} and GET /video/presign/{postId} errors', () => {
  it('when the job is unknown or of another workspace, then 404; an invalid id answers 400 naming jobId', async () => {
    const jobId = await startedJob(await postWithUnreadableImage());
    expect((await workspace.client.get(`/video/jobs/${unknownId}`)).status).toBe(404);
    expect((await other.client.get<Problem>(`/video/jobs/${jobId}`)).status).toBe(404);
    const invalid = await workspace.client.get<Problem>('/video/jobs/not-an-id');
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([expect.objectContaining({ location: 'path', path: 'jobId' })]);
    await pollUntilEnded(jobId);
  });

  it('when the post has no video, is unknown or of another workspace, then 404; an invalid id answers 400', async () => {
    const postId = await generatedPost('1:1');
    const none = await workspace.client.get<Problem>(`/video/presign/${postId}`);
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain(`A video of post ${postId}`);
    expect((await workspace.client.get(`/video/presign/${unknownId}`)).status).toBe(404);
    expect((await other.client.get(`/video/presign/${postId}`)).status).toBe(404);
    expect((await workspace.client.get('/video/presign/not-an-id')).status).toBe(400);
  });

  it('when called without a key, then 401', async () => {
    expect((await workspace.client.get(`/video/jobs/${unknownId}`, { key: null })).status).toBe(401);
    expect((await workspace.client.get(`/video/presign/${unknownId}`, { key: null })).status).toBe(401);
  });
});
