import type { Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { createActivityWorker } from './create-activity-worker.ts';
import type { WorkerOptions } from './create-worker.ts';

/** The worker of the video task queue: ffmpeg encodes, at most `VIDEO_CONCURRENCY` at once. */
export function createVideoWorker({ connection, config, deps }: Omit<WorkerOptions, 'workflowBundlePath'>): Promise<Worker> {
  const { renderPostVideo } = createActivities(deps);
  return createActivityWorker(
    { connection, config },
    {
      taskQueue: taskQueues.video(config.temporal.taskQueue),
      activities: { renderPostVideo },
      concurrency: config.video.concurrency,
      // Progress that users watch goes out as heartbeats; see createWorker.
      maxHeartbeatThrottleInterval: '1 second',
    },
  );
}
