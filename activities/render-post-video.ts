import { ApplicationFailure, Context } from '@temporalio/activity';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { join } from 'node:path';
import { loadPost } from '../src/domain/posts/load-post.ts';
import { reserveObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { beginVideoAttempt } from '../src/domain/video/begin-video-attempt.ts';
import { composeTitleOverlay } from '../src/adapters/artwork/compose-post-image.ts';
import { objectKeys } from '../src/adapters/object-storage/object-keys.ts';
import { encodePostVideo, VideoEncodingError } from '../src/adapters/video-encoding/encode-post-video.ts';
import type { VideoProgress } from '../src/adapters/video-encoding/video-progress.ts';
import { videoWorkDir } from '../src/adapters/video-encoding/video-work-dir.ts';
import type { Deps } from '../src/domain/deps.ts';
import { videoJobProgress } from './video-job-progress.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';

export type RenderPostVideoInput = { jobId: string };
export type RenderedVideo = { videoKey: string; bytes: number; notes: string[] };

const videoGraceMs = 24 * 60 * 60 * 1000;

/**
 * Makes the post's video and stores it. Progress goes out as heartbeat details (`VideoProgress`), which is where
 * `GET /video/jobs/{jobId}` and the Temporal UI read it from, and which also tells Temporal the worker is alive and
 * brings back a cancellation (the job's workflow cancelled, or this worker shutting down): ffmpeg is then killed.
 */
export async function renderPostVideo(deps: Deps, input: RenderPostVideoInput): Promise<RenderedVideo> {
  const context = Context.current();
  const recorded = videoJobProgress(deps, input.jobId);
  const report = (progress: VideoProgress) => {
    context.heartbeat(progress);
    recorded.record(progress.percent);
  };
  context.heartbeat({ stage: 'preparing', percent: 0 } satisfies VideoProgress);

  const em = deps.orm.em.fork();
  const job = await beginVideoAttempt(em, input.jobId);
  const { post, brandKit } = await loadPost(em, job.postId);
  const sourceKey = post.artworkKey ?? post.imageKey;
  const source = sourceKey ? await deps.storage.get(sourceKey) : null;
  if (!source) throw ApplicationFailure.nonRetryable(`Post ${post.id} has no image to make a video of; generate it first.`, failureTypes.noImage);

  const workDir = await videoWorkDir();
  try {
    const artworkPath = join(workDir, 'artwork');
    await writeFile(artworkPath, await buffer(source.body));
    // Over the bare artwork the title fades in; a rendered image (no artwork kept) already carries its title.
    const title = post.artworkKey
      ? await composeTitleOverlay({ format: job.format, title: post.title, colors: brandKit?.colors ?? {}, fonts: brandKit?.fonts ?? {} })
      : null;
    const overlay = title ? { path: join(workDir, 'title.png'), top: title.top } : null;
    if (title && overlay) await writeFile(overlay.path, title.png);

    const outputPath = join(workDir, 'video.mp4');
    await encodePostVideo({
      ffmpegPath: deps.video.ffmpegPath,
      artworkPath,
      overlay,
      format: job.format,
      outputPath,
      onProgress: (done) => report({ stage: 'encoding', percent: Math.round(done * 100) }),
      signal: context.cancellationSignal,
    }).catch((error: unknown) => {
      // ffmpeg refusing its input fails the same way every time; a killed ffmpeg (no exit code) may be transient.
      if (error instanceof VideoEncodingError && error.exitCode !== null)
        throw ApplicationFailure.nonRetryable(error.message, failureTypes.videoEncodingFailed);
      throw error;
    });

    report({ stage: 'storing', percent: 100 });
    const video = await readFile(outputPath);
    const videoKey = objectKeys.postVideo(post.workspaceId, post.id, job.id);
    await reserveObjectKey(em, { key: videoKey, reason: 'video never saved', graceMs: videoGraceMs });
    await deps.storage.put(videoKey, video, 'video/mp4');
    return { videoKey, bytes: video.length, notes: title?.notes ?? [] };
  } finally {
    await rm(workDir, { recursive: true, force: true });
    await recorded.settled();
  }
}
