import { log } from '@temporalio/activity';
import { recordVideoJobProgress } from '../src/domain/video/record-video-job-progress.ts';
import type { Deps } from '../src/domain/deps.ts';
import { messageOf } from '../src/common/errors/caught.ts';

const stepPercent = 10;

/**
 * Keeps a running job's progress in its row too (recordVideoJobProgress), at most once per 10% step, one write at a
 * time and in order: live progress is the heartbeat (read from Temporal while the job runs). A write that fails is
 * logged and skipped: progress is not worth failing a video for.
 */
export function videoJobProgress(deps: Pick<Deps, 'orm'>, jobId: string) {
  const em = deps.orm.em.fork();
  let recordedStep = 0;
  let writes = Promise.resolve();
  return {
    record(percent: number): void {
      const step = Math.floor(percent / stepPercent);
      if (step <= recordedStep) return;
      recordedStep = step;
      writes = writes
        .then(() => recordVideoJobProgress(em, jobId, percent))
        .then(
          () => undefined,
          (error: unknown) => {
            log.warn('could not record the video job progress', { error: messageOf(error), jobId });
          },
        );
    },
    /** Resolves once every write asked for has been made (or given up). */
    settled: (): Promise<void> => writes,
  };
}
