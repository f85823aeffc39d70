import { log } from '@temporalio/activity';
import { VideoJob } from '../src/data/entities/video-job.ts';
import type { ActivityDeps } from './index.ts';

const stepPercent = 10;

/**
 * Keeps a running job's progress in its row too, at most once per 10% step, one write at a time and in order: live
 * progress is the heartbeat (read from Temporal while the job runs), this is what stays when the job fails or is
 * cancelled, or Temporal no longer keeps it. Only a running row is written, so a late write never changes an end.
 * A write that fails is logged and skipped: progress is not worth failing a video for.
 */
export function videoJobProgress(deps: Pick<ActivityDeps, 'orm'>, jobId: string) {
  const em = deps.orm.em.fork();
  let recordedStep = 0;
  let writes = Promise.resolve();
  return {
    record(percent: number): void {
      const step = Math.floor(percent / stepPercent);
      if (step <= recordedStep) return;
      recordedStep = step;
      writes = writes
        .then(() => em.nativeUpdate(VideoJob, { id: jobId, status: 'running' }, { progress: percent }))
        .then(
          () => undefined,
          (error: unknown) => {
            log.warn('could not record the video job progress', { error: error instanceof Error ? error.message : String(error), jobId });
          },
        );
    },
    /** Resolves once every write asked for has been made (or given up). */
    settled: (): Promise<void> => writes,
  };
}
