import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { VideoJob as VideoJobRow } from '../../src/adapters/database/entities/video-job.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { deleteWorkflowHistory, ffmpegChildren, pacedFfmpeg } from '../support/videos.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Stopping a video stops ffmpeg: a cancelled job's workflow cancels the encoding activity, whose heartbeat brings the
// cancellation back and kills ffmpeg; a worker shutting down does the same once its grace time is over. ffmpeg is the
// real one, paced at real time so the test can act while it encodes; the workers run in this process, so its ffmpeg
// runs are this process's children.

type VideoJob = Schemas['VideoJob'];

const scratch = mkdtempSync(join(tmpdir(), 'paced-ffmpeg-'));
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { FFMPEG_PATH: pacedFfmpeg(scratch), WORKER_SHUTDOWN_GRACE_SECONDS: '0' },
    project: 'Videos',
  }));
});
afterAll(async () => {
  await app?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts a video of a freshly generated post and waits until ffmpeg is encoding it; returns the job and ffmpeg's PID. */
async function encodingJob(): Promise<{ jobId: string; pid: number; seen: VideoJob[] }> {
  const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Night market', prompt: 'Stalls under paper lamps', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${postId}/generate`, { format: '1:1' })).status).toBe(200);
  const started = await fetch(`${app.url}/dashboard/api/posts/${postId}/video`, { method: 'POST', headers: { authorization: `Bearer ${workspace.key}` } });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  const seen: VideoJob[] = [];
  const pid = await eventually(async () => {
    const job = (await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`)).body;
    seen.push(job);
    expect(job.message).toMatch(/^Encoding the video: \d+%$/);
    const [running] = ffmpegChildren();
    expect(running).toBeDefined();
    return running!;
  }, 60_000);
  return { jobId, pid, seen };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stopping a video job', () => {
  it(
    'when its workflow is cancelled while ffmpeg encodes, then ffmpeg is killed and the job ends cancelled, in Temporal and in its record',
    { timeout: 120_000 },
    async () => {
      const { jobId, pid, seen } = await encodingJob();
      const progress = await eventually(async () => {
        const job = (await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`)).body;
        seen.push(job);
        expect(job.progress).toBeGreaterThan(0);
        return job.progress;
      }, 30_000);
      for (const [index, state] of seen.entries()) if (index > 0) expect(state.progress).toBeGreaterThanOrEqual(seen[index - 1]!.progress);

      await app.api.services.temporal.workflow.getHandle(jobId).cancel();
      await eventually(() => Promise.resolve(expect(isAlive(pid)).toBe(false)), 20_000);
      expect(ffmpegChildren()).toEqual([]);

      const ended = await eventually(async () => {
        const job = (await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`)).body;
        expect(job.status).toBe('cancelled');
        return job;
      }, 20_000);
      expect(ended).toMatchObject({ message: 'The job was cancelled.', error: null, videoUrl: null });
      const row = await eventually(async () => {
        const found = await app.api.services.orm.em.fork().findOneOrFail(VideoJobRow, jobId);
        expect(found.status).toBe('cancelled');
        return found;
      });
      expect(row.completedAt).toBeInstanceOf(Date);
      expect(row.videoKey).toBeNull();
      expect(row.progress).toBeLessThanOrEqual(100);

      // Answered from the record alone once Temporal no longer keeps the run; the progress is where it stopped.
      await deleteWorkflowHistory(app.api.services.temporal, jobId);
      const after = (await workspace.client.get<VideoJob>(`/video/jobs/${jobId}`)).body;
      expect(after).toMatchObject({ status: 'cancelled', progress: row.progress, completedAt: row.completedAt!.toISOString() });
      expect(row.progress).toBeGreaterThanOrEqual(Math.floor(progress / 10) * 10);
    },
  );
});
